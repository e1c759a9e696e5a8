import { type Kysely, sql } from 'kysely';
import type { Storage } from 'restlayer';

const orderColumns = ['status', 'order_date', 'due_date', 'ship_date', 'territory_id', 'sales_person_id', 'sub_total',
  'tax_amt', 'freight', 'total_due', 'online_order_flag', 'purchase_order_number', 'account_number', 'comment', 'revision_number', 'modified_date'];

const lineColumns = ['product_id', 'order_qty', 'unit_price', 'unit_price_discount', 'line_total'];

const scalar = async (db: Kysely<unknown>, query: ReturnType<typeof sql<{ n: number | string | null }>>) =>
  Number((await query.execute(db)).rows[0]?.n ?? 0);

/** A recursive CTE numbering `copies` copies, on both stores. */
const numbered = (copies: number) => sql`with recursive copy(i) as (select 1 union all select i + 1 from copy where i < ${sql.lit(copies)})`;

/**
 * `copies` copies of the customers with ids up to `span`, copy i shifted by i × span; account numbers are unique
 * (ignoring case), so a copy's is `CP` and its new id (CP67658: the sample's own, 10-4030-011000, are 14 characters,
 * and one with a suffix would pass the field's 15, which PostgreSQL enforces).
 */
const copyCustomers = (db: Kysely<unknown>, copies: number, span: number) => sql`${numbered(copies)}
  insert into customer (customer_id, name, account_number, territory_id)
  select c.customer_id + copy.i * ${sql.lit(span)}, c.name, 'CP' || (c.customer_id + copy.i * ${sql.lit(span)}), c.territory_id
  from customer c cross join copy where c.customer_id <= ${sql.lit(span)}`.execute(db);

/** Copies the customers there are (no orders of their own) until there are at least `customers`. */
async function growCustomers(db: Kysely<unknown>, customers: number): Promise<void> {
  const copies = Math.ceil(customers / await scalar(db, sql`select count(*) as n from customer`)) - 1;
  if (copies > 0) await copyCustomers(db, copies, await scalar(db, sql`select max(customer_id) as n from customer`));
}

/**
 * Grows the sample to about `orders` orders by copying the seeded orders, their lines and their customers (new ids and order
 * numbers, same dates and statuses), so lists keep the sample's shape at scale, and the customers to at least
 * `options.customers` (the sample has 15 orders a customer); then refreshes the planner's statistics. Answers the
 * number of orders.
 */
export async function growOrders(storage: Storage, orders: number, options: { customers?: number } = {}): Promise<number> {
  // On a connection of its own without the requests' time bound (the store's setup connection): copying tens of
  // thousands of rows beside a loaded run took longer than a request may, and failed as a lost connection.
  return storage.exclusive((db) => grow(storage, db as unknown as Kysely<unknown>, orders, options));
}

async function grow(storage: Storage, db: Kysely<unknown>, orders: number, options: { customers?: number }): Promise<number> {
  const base = await scalar(db, sql`select count(*) as n from sales_order`);
  const orderSpan = await scalar(db, sql`select max(sales_order_id) as n from sales_order`);
  const customerSpan = await scalar(db, sql`select max(customer_id) as n from customer`);
  const copies = Math.ceil(orders / base) - 1;
  if (copies > 0) {
    // One statement per table.
    await copyCustomers(db, copies, customerSpan);
    const columns = sql.join(orderColumns.map((c) => sql.id(c)));
    const copied = sql.join(orderColumns.map((c) => sql.ref(`so.${c}`)));
    const id = sql`so.sales_order_id + copy.i * ${sql.lit(orderSpan)}`;
    await sql`${numbered(copies)} insert into sales_order (sales_order_id, sales_order_number, customer_id, ${columns})
      select ${id}, 'SO' || (${id}), so.customer_id + copy.i * ${sql.lit(customerSpan)}, ${copied}
      from sales_order so cross join copy where so.sales_order_id <= ${sql.lit(orderSpan)}`.execute(db);
    // Each copy's lines: its totals stay the sum of them.
    const lines = sql.join(lineColumns.map((c) => sql.id(c)));
    const copiedLines = sql.join(lineColumns.map((c) => sql.ref(`d.${c}`)));
    await sql`${numbered(copies)} insert into sales_order_detail (sales_order_id, ${lines})
      select d.sales_order_id + copy.i * ${sql.lit(orderSpan)}, ${copiedLines}
      from sales_order_detail d cross join copy where d.sales_order_id <= ${sql.lit(orderSpan)}
      order by copy.i, d.sales_order_detail_id`.execute(db);
  }
  await growCustomers(db, options.customers ?? 0);
  // Later inserts take ids after the copies.
  await storage.dialect.syncIdentity(db, 'sales_order', 'sales_order_id');
  await storage.dialect.syncIdentity(db, 'customer', 'customer_id');
  await storage.dialect.syncIdentity(db, 'sales_order_detail', 'sales_order_detail_id');
  await storage.dialect.refreshStatistics(db);
  return scalar(db, sql`select count(*) as n from sales_order`);
}
