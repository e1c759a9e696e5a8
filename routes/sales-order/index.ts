import { route } from '../../services/index.js';
import { array, documentBody } from 'restlayer';
import {
  SalesOrderCreateData, SalesOrderCreateResult, SalesOrderLineData, SalesOrderListItem, salesOrderCriteria,
} from '../../services/sales-order/sales-order-models.js';

export const GET = route({
  summary: 'List sales orders matching the criteria.',
  permission: 'sales-order.read',
  scopes: ['own'],
  operation: 'ISalesOrderService.readList',
  query: salesOrderCriteria,
  result: array(SalesOrderListItem),
  csv: { filename: 'sales-order.csv' },
  handle: ({ query, services }) => services.salesOrder.readList(query),
});

export const POST = route({
  summary: 'Create a sales order.',
  permission: 'sales-order.create',
  scopes: ['own'],
  operation: 'ISalesOrderService.create',
  body: SalesOrderCreateData,
  // The order with up to Documents:MaxLines lines of up to 256 bytes each (a line is about 100 written compactly).
  maxBody: documentBody(SalesOrderLineData, 256),
  result: SalesOrderCreateResult,
  async handle({ body, services, created }) {
    const output = await services.salesOrder.create(body);
    if (output.result) created(`/sales-order/${output.result.salesOrderId}`);
    return output;
  },
});
