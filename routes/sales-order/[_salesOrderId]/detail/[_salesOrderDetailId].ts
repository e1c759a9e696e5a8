import { route } from '../../../../services/index.js';
import {
  SalesOrderDetailDeleteQuery, SalesOrderDetailKey, SalesOrderDetailPatchData, SalesOrderDetailRead,
  SalesOrderDetailUpdateData, SalesOrderDetailWriteResult,
} from '../../../../services/sales-order/sales-order-models.js';
import { orderRead } from '../../../../services/sales-order/order-etag.js';

export const GET = route({
  summary: 'Read one line of a sales order; a line of another order is a 404.',
  permission: 'sales-order.read',
  scopes: ['own'],
  operation: 'ISalesOrderService.readLine',
  params: SalesOrderDetailKey,
  result: SalesOrderDetailRead,
  answers: [404],
  handle: ({ params, services }) => services.salesOrder.readLine(params._salesOrderId, params._salesOrderDetailId),
});

export const PUT = route({
  summary: 'Replace a line (unitPrice absent: the product\'s listPrice); answers the order\'s new totals and revision; a stale revisionNumber is a 409.',
  permission: 'sales-order.update',
  scopes: ['own'],
  operation: 'ISalesOrderService.updateLine',
  params: SalesOrderDetailKey,
  body: SalesOrderDetailUpdateData,
  result: SalesOrderDetailWriteResult,
  answers: [404, 409],
  etag: orderRead,
  handle: ({ params, body, services }) => services.salesOrder.updateLine(params._salesOrderId, params._salesOrderDetailId, body),
});

export const PATCH = route({
  summary: 'Change only the line fields the body names (JSON merge patch); answers as PUT; a stale revisionNumber is a 409.',
  permission: 'sales-order.update',
  scopes: ['own'],
  operation: 'ISalesOrderService.patchLine',
  params: SalesOrderDetailKey,
  body: SalesOrderDetailPatchData,
  result: SalesOrderDetailWriteResult,
  answers: [404, 409],
  etag: orderRead,
  handle: ({ params, body, services }) => services.salesOrder.patchLine(params._salesOrderId, params._salesOrderDetailId, body),
});

export const DELETE = route({
  summary: 'Remove a line; the query parameter revisionNumber (the order\'s, optional) is checked: a stale one is a 409.',
  permission: 'sales-order.update',
  scopes: ['own'],
  operation: 'ISalesOrderService.deleteLine',
  params: SalesOrderDetailKey,
  query: SalesOrderDetailDeleteQuery,
  result: SalesOrderDetailWriteResult,
  answers: [404, 409],
  etag: orderRead,
  handle: ({ params, query, services }) => services.salesOrder.deleteLine(params._salesOrderId, params._salesOrderDetailId, query.revisionNumber),
});
