import { salesOrder } from '../../../../services/sales-order/sales-order.js';

export const { GET, POST } = salesOrder.routes.lines.collection;
