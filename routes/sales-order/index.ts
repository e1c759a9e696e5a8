import { route } from '../../services/index.js';
import { array } from 'restlayer';
import {
  SalesOrderCreateData, SalesOrderCreateResult, SalesOrderListItem, salesOrderCriteria,
} from '../../services/sales-order/sales-order-models.js';

export const GET = route({
  summary: 'List sales orders matching the criteria.',
  permission: 'sales-order.read',
  scopes: ['own'],
  operation: 'ISalesOrderService.readList',
  query: salesOrderCriteria,
  result: array(SalesOrderListItem),
  handle: ({ query, services }) => services.salesOrder.readList(query),
});

export const POST = route({
  summary: 'Create a sales order.',
  permission: 'sales-order.create',
  scopes: ['own'],
  operation: 'ISalesOrderService.create',
  body: SalesOrderCreateData,
  result: SalesOrderCreateResult,
  async handle({ body, services, created }) {
    const output = await services.salesOrder.create(body);
    if (output.result) created(`/sales-order/${output.result.salesOrderId}`);
    return output;
  },
});
