import { route } from '../../../services/index.js';
import { array, historyQuery } from 'restlayer';
import { SalesOrderHistoryEntry, SalesOrderKey } from '../../../services/sales-order/sales-order-models.js';

export const GET = route({
  summary: 'The order\'s change history, newest first, its line writes included: when, who, the operation and each changed field\'s old and new value; paged by skip and take. A deleted order\'s history is readable with sales-order.delete.',
  operation: 'ISalesOrderService.history',
  permission: 'sales-order.read',
  scopes: ['own'],
  params: SalesOrderKey,
  query: historyQuery,
  result: array(SalesOrderHistoryEntry),
  answers: [404],
  handle: ({ params, query, services }) => services.salesOrder.history(params._salesOrderId, query),
});
