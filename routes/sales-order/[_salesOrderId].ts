import { route } from '../../services/index.js';
import {
  SalesOrderKey, SalesOrderPatchData, SalesOrderRead, SalesOrderUpdateData, SalesOrderUpdateResult,
} from '../../services/sales-order/sales-order-models.js';
import { orderRead } from '../../services/sales-order/order-etag.js';

export const GET = route({
  summary: 'Read one sales order.',
  permission: 'sales-order.read',
  scopes: ['own'],
  operation: 'ISalesOrderService.read',
  params: SalesOrderKey,
  result: SalesOrderRead,
  answers: [404],
  etag: 'result',
  handle: ({ params, services }) => services.salesOrder.read(params._salesOrderId),
});

export const PUT = route({
  summary: 'Update a sales order; a stale revisionNumber is a 409.',
  permission: 'sales-order.update',
  scopes: ['own'],
  operation: 'ISalesOrderService.update',
  params: SalesOrderKey,
  body: SalesOrderUpdateData,
  result: SalesOrderUpdateResult,
  answers: [404, 409],
  etag: orderRead,
  handle: ({ params, body, services }) => services.salesOrder.update(params._salesOrderId, body),
});

export const PATCH = route({
  summary: 'Change only the fields the body names (JSON merge patch; null clears an optional field); a stale revisionNumber is a 409.',
  permission: 'sales-order.update',
  scopes: ['own'],
  operation: 'ISalesOrderService.patch',
  params: SalesOrderKey,
  body: SalesOrderPatchData,
  result: SalesOrderUpdateResult,
  answers: [404, 409],
  etag: orderRead,
  handle: ({ params, body, services }) => services.salesOrder.patch(params._salesOrderId, body),
});

export const DELETE = route({
  summary: 'Delete a sales order.',
  permission: 'sales-order.delete',
  scopes: ['own'],
  operation: 'ISalesOrderService.delete',
  params: SalesOrderKey,
  answers: [404],
  etag: orderRead,
  handle: ({ params, services }) => services.salesOrder.delete(params._salesOrderId),
});
