import { salesOrder } from '../../../../services/sales-order/sales-order.js';

export const { GET, PUT, PATCH, DELETE } = salesOrder.routes.lines.item;
