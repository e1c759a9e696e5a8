import { SAMPLE_ORDER_COUNT, generateCustomers, generateOrders } from '../../services/sales-order/sample-data.js';
import type { OrderItem } from './api.js';

/**
 * The sample orders as plain JavaScript, rebuilt from the same deterministic generator the server seeds its
 * database with. Filtering this array is an expectation computed without SQL, to hold the server's answers
 * against. Only valid while the server's orders are unchanged (no writes in the same server).
 */
export interface SampleOrder extends Omit<OrderItem, 'orderDate' | 'dueDate' | 'shipDate'> {
  orderDate: Date;
  dueDate: Date;
  shipDate?: Date;
}

let cache: SampleOrder[] | undefined;

export function sampleOrders(): SampleOrder[] {
  if (cache) return cache;
  const customers = generateCustomers();
  const names = new Map(customers.map((c) => [c.customer_id, c.name]));
  const rows = generateOrders(customers, SAMPLE_ORDER_COUNT, (d) => d.toISOString(), (b) => b);
  cache = rows.map((r) => {
    const order: SampleOrder = {
      salesOrderId: r.sales_order_id as number,
      salesOrderNumber: r.sales_order_number,
      status: r.status,
      orderDate: new Date(r.order_date as string),
      dueDate: new Date(r.due_date as string),
      customerId: r.customer_id,
      customerName: names.get(r.customer_id)!,
      totalDue: Number(r.total_due),
      onlineOrderFlag: r.online_order_flag as boolean,
    };
    if (r.ship_date != null) order.shipDate = new Date(r.ship_date as string);
    if (r.territory_id != null) order.territoryId = r.territory_id;
    if (r.sales_person_id != null) order.salesPersonId = r.sales_person_id;
    return order;
  });
  return cache;
}

/** How many sample orders satisfy `predicate`. */
export function expectedCount(predicate: (o: SampleOrder) => boolean): number {
  return sampleOrders().filter(predicate).length;
}

/** The sample order with this id. */
export function sampleOrder(id: number): SampleOrder {
  const order = sampleOrders().find((o) => o.salesOrderId === id);
  if (!order) throw new Error(`no sample order ${id}`);
  return order;
}

/** The wire form of a list item for a sample order (dates as ISO 8601 text). */
export function asListItem(o: SampleOrder): OrderItem {
  const { orderDate, dueDate, shipDate, ...rest } = o;
  const item: OrderItem = { ...rest, orderDate: orderDate.toISOString(), dueDate: dueDate.toISOString() };
  if (shipDate) item.shipDate = shipDate.toISOString();
  return item;
}
