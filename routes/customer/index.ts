import { customer } from '../../services/customer/customer.js';

export const { GET, POST } = customer.routes.collection;
