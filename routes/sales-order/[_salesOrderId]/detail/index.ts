import { route } from '../../../../services/index.js';
import { array } from 'restlayer';
import {
  SalesOrderDetailCreateData, SalesOrderDetailRead, SalesOrderDetailWriteResult, SalesOrderKey,
} from '../../../../services/sales-order/sales-order-models.js';
import { orderRead } from '../../../../services/sales-order/order-etag.js';

export const GET = route({
  summary: 'List the lines of a sales order, by salesOrderDetailId.',
  permission: 'sales-order.read',
  scopes: ['own'],
  operation: 'ISalesOrderService.readLines',
  params: SalesOrderKey,
  result: array(SalesOrderDetailRead),
  answers: [404],
  handle: ({ params, services }) => services.salesOrder.readLines(params._salesOrderId),
});

export const POST = route({
  summary: 'Add a line to a sales order: answers the line\'s id and total and the order\'s new totals and revision; a stale revisionNumber (the order\'s) is a 409.',
  permission: 'sales-order.update',
  scopes: ['own'],
  operation: 'ISalesOrderService.createLine',
  params: SalesOrderKey,
  body: SalesOrderDetailCreateData,
  result: SalesOrderDetailWriteResult,
  answers: [404, 409],
  etag: orderRead,
  async handle({ params, body, services, created }) {
    const output = await services.salesOrder.createLine(params._salesOrderId, body);
    if (output.result?.salesOrderDetailId) created(`/sales-order/${params._salesOrderId}/detail/${output.result.salesOrderDetailId}`);
    return output;
  },
});
