import { customer } from '../../services/customer/customer.js';

export const { GET, PUT, PATCH, DELETE } = customer.routes.item;
