import { customer } from '../../../services/customer/customer.js';

export const { GET } = customer.routes.history;
