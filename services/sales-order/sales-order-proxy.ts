import { resourceProxy } from 'restlayer/client';
import type { salesOrder } from './sales-order.js';

/**
 * The sales order service over HTTP, for clients (browser-safe: the declaration is imported for its type only). The
 * compiler checks the address against the declaration: every Date property, the lines' path and key; the drift check
 * (test/client/drift.test.ts) against the routes. purgeCancelled is not exposed via REST: the proxy rejects it.
 */
export const SalesOrderProxy = resourceProxy<typeof salesOrder, 'purgeCancelled'>({
  name: 'sales-order',
  key: 'salesOrderId',
  dates: { orderDate: true, dueDate: true, shipDate: true, modifiedDate: true },
  children: { lines: { item: 'line', path: 'detail', key: 'salesOrderDetailId' } },
  notExposed: ['purgeCancelled'],
  softDelete: true,
});
export type SalesOrderProxy = InstanceType<typeof SalesOrderProxy>;
