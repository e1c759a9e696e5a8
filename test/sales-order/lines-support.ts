import { type Kysely, sql } from 'kysely';
import { expectOk } from '../support/api.js';
import type { Json, Reply, TestServer } from '../support/server.js';

/** A product of lookup table `product` as the wire has it. */
export interface WireProduct {
  id: number;
  text: string;
  isActive: boolean;
  attributes: { productNumber: string; listPrice: number };
}

/** The products, read from the server (GET /lookup-table/product). */
export async function readProducts(server: TestServer): Promise<WireProduct[]> {
  return expectOk(await server.call('/lookup-table/product')).result.data as WireProduct[];
}

/** An active and an inactive product of the server's table. */
export async function someProducts(server: TestServer): Promise<{ active: WireProduct; other: WireProduct; inactive: WireProduct }> {
  const products = await readProducts(server);
  const active = products.filter((p) => p.isActive);
  return { active: active[0], other: active[5], inactive: products.find((p) => !p.isActive && p.id !== 1)! };
}

/** POST a line to an order. */
export const addLine = (server: TestServer, orderId: number, body: Record<string, Json>): Promise<Reply> =>
  server.call(`/sales-order/${orderId}/detail`, { method: 'POST', body });

/** A new order of the sample's customer 11000 with the given lines (and other fields); answers its id. */
export async function orderWith(server: TestServer, lines: Record<string, Json>[], fields: Record<string, Json> = {}): Promise<number> {
  const reply = await server.call('/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true, lines, ...fields } });
  return expectOk(reply, 201).result.salesOrderId as number;
}

/** How many orders and lines the store holds, behind the API. */
export async function countRows(server: TestServer): Promise<{ orders: number; lines: number }> {
  const db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
  const { rows } = await sql<{ orders: number | string; lines: number | string }>`select
    (select count(*) from sales_order) as orders, (select count(*) from sales_order_detail) as lines`.execute(db);
  return { orders: Number(rows[0].orders), lines: Number(rows[0].lines) };
}

/**
 * The orders whose header does not follow from their lines, in ONE query (one snapshot): subTotal ≠ Σ lineTotal or
 * totalDue ≠ subTotal + taxAmt + freight. Exact on both stores (integers in SQLite, numeric in PostgreSQL).
 */
export async function inconsistentOrders(server: TestServer): Promise<number[]> {
  const db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
  const { rows } = await sql<{ sales_order_id: number }>`select so.sales_order_id from sales_order so
    left join (select sales_order_id, sum(line_total) as lines_total from sales_order_detail group by sales_order_id) d
      on d.sales_order_id = so.sales_order_id
    where so.sub_total <> coalesce(d.lines_total, 0) or so.total_due <> so.sub_total + so.tax_amt + so.freight
    order by so.sales_order_id`.execute(db);
  return rows.map((r) => r.sales_order_id);
}
