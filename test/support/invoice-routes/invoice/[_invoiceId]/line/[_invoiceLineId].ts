import { invoice } from '../../../../invoice-module.js';

export const { GET, PUT, PATCH, DELETE } = invoice.routes.lines.item;
