import { customer } from '../../../../services/customer/customer.js';

// The sample's customers, which invoices and their lines refer to: their deletes are tested against those references.
export const { GET, DELETE } = customer.routes.item;
