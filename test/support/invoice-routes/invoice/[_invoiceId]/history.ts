import { invoice } from '../../../invoice-module.js';

export const { GET } = invoice.routes.history;
