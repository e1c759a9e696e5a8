import { invoice } from '../../../invoice-module.js';

// A multi-word action: the file is its path (mark-paid), the routes group its key.
export const { POST } = invoice.routes.markPaid;
