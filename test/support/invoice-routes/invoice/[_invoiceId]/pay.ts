import { invoice } from '../../../invoice-module.js';

export const { POST } = invoice.routes.pay;
