import { salesOrder } from '../../../services/sales-order/sales-order.js';

export const { GET } = salesOrder.routes.history;
