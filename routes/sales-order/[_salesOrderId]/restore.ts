import { salesOrder } from '../../../services/sales-order/sales-order.js';

export const { POST } = salesOrder.routes.restore!;
