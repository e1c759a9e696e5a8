import { invoice } from '../../invoice-module.js';

export const { GET, POST } = invoice.routes.collection;
