import { resourceProxy } from 'restlayer/client';
import type { customer } from './customer.js';

/** The customer service over HTTP, for clients (browser-safe: the declaration is imported for its type only). */
export const CustomerProxy = resourceProxy<typeof customer>({ name: 'customer', key: 'customerId', dates: { modifiedDate: true }, softDelete: true });
