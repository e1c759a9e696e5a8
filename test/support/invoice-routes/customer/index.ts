import { customer } from '../../../../services/customer/customer.js';

export const { POST } = customer.routes.collection;
