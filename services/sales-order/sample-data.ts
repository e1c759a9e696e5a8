import { Decimal, type Insertable, type Kysely, type SqlValues, type Storage, inTransaction, sql } from 'restlayer';
import { lineTotalOf } from './amounts.js';
import { activeProducts } from './products.js';
import type { CustomerTable, DbMoney, SalesOrderDetailTable, SalesOrderTable, SalesTables } from './sales-order-tables.js';

/**
 * A deterministic AdventureWorks-style data set: the same seed gives the same rows on every machine and
 * provider, so tests and benchmarks can rely on its shape.
 */
export const SAMPLE_ORDER_COUNT = 12_000;
const FIRST_ORDER_ID = 43659;
const FIRST_DAY = Date.UTC(2021, 0, 1);
const LAST_DAY = Date.UTC(2025, 11, 31);
const DAY = 86_400_000;

export const statuses: [number, string][] = [
  [1, 'In process'], [2, 'Approved'], [3, 'Backordered'], [4, 'Rejected'], [5, 'Shipped'], [6, 'Cancelled'],
];

export const territories: [number, string, string, string][] = [
  [1, 'Northwest', 'US', 'North America'], [2, 'Northeast', 'US', 'North America'], [3, 'Central', 'US', 'North America'],
  [4, 'Southwest', 'US', 'North America'], [5, 'Southeast', 'US', 'North America'], [6, 'Canada', 'CA', 'North America'],
  [7, 'France', 'FR', 'Europe'], [8, 'Germany', 'DE', 'Europe'], [9, 'Australia', 'AU', 'Pacific'],
  [10, 'United Kingdom', 'GB', 'Europe'],
];

export const salesPeople: [number, string, number | null, boolean][] = [
  [274, 'Stephen Jiang', null, true], [275, 'Michael Blythe', 2, true], [276, 'Linda Mitchell', 4, true],
  [277, 'Jillian Carson', 3, true], [278, 'Garrett Vargas', 6, true], [279, 'Tsvi Reiter', 5, true],
  [280, 'Pamela Ansman-Wolfe', 1, true], [281, 'Shu Ito', 4, true], [282, 'José Saraiva', 6, true],
  [283, 'David Campbell', 1, true], [284, 'Tete Mensa-Annan', 1, true], [285, 'Syed Abbas', null, false],
  [286, 'Lynn Tsoflias', 9, true], [287, 'Amy Alberts', null, true], [288, 'Rachel Valdez', 8, true],
  [289, 'Jae Pak', 10, true], [290, 'Ranjit Varkey Chudukatil', 7, true],
];

const firstNames = ['Aaron', 'Abigail', 'Adam', 'Alexandra', 'Ana', 'Andrew', 'Angela', 'Ben', 'Blake', 'Carla', 'Carlos',
  'Chloe', 'Daniel', 'Dalton', 'Elena', 'Emma', 'Ethan', 'Fernando', 'Grace', 'Hannah', 'Isabella', 'Jacob', 'Jasmine',
  'Jordan', 'Julia', 'Kaitlyn', 'Kevin', 'Lauren', 'Luis', 'Marcus', 'Maria', 'Mason', 'Natalie', 'Nathan', 'Olivia',
  'Paige', 'Rebecca', 'Ruben', 'Samantha', 'Seth', 'Sydney', 'Tyler', 'Victoria', 'Xavier', 'Zoe'];
const lastNames = ['Adams', 'Alexander', 'Bailey', 'Baker', 'Bell', 'Brooks', 'Butler', 'Campbell', 'Carter', 'Chen',
  'Collins', 'Cook', 'Diaz', 'Edwards', 'Evans', 'Fernandez', 'Foster', 'Garcia', 'Gonzalez', 'Gray', 'Green', 'Hall',
  'Hernandez', 'Hughes', 'Jenkins', 'Kumar', 'Lee', 'Lopez', 'Martin', 'Moreno', 'Murphy', 'Nelson', 'Patel', 'Perez',
  'Powell', 'Ramirez', 'Rivera', 'Russell', 'Sanchez', 'Shan', 'Simmons', 'Torres', 'Turner', 'Wang', 'Ward', 'Zhang'];
const stores = ['Bike World', 'Cycle Works', 'Sport Warehouse', 'Trail Outfitters', 'Wheel Gallery', 'Pedal Pushers',
  'Mountain Supplies', 'Road Masters', 'Urban Riders', 'Gear Exchange'];
const comments = ['Deliver to the back entrance.', 'Customer asked for a single shipment.', 'Gift wrap requested.',
  'Call before delivery.', 'Priority customer: expedite.'];

/** mulberry32: a tiny, well-distributed PRNG; the seed fixes the data set. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] };
}

/** Sample customers always have an account number and a territory (the orders copy both). */
export type SampleCustomer = CustomerTable & { account_number: string; territory_id: number };

export function generateCustomers(count = 800): SampleCustomer[] {
  const r = random(7);
  return Array.from({ length: count }, (_, i) => {
    const id = 11000 + i;
    const reseller = i % 4 === 0;
    const name = reseller ? `${r.pick(stores)} ${r.pick(lastNames)}` : `${r.pick(firstNames)} ${r.pick(lastNames)}`;
    return { customer_id: id, name, account_number: `10-4030-${String(id).padStart(6, '0')}`, territory_id: r.int(1, 10) };
  });
}

/** A sample line; amounts as numbers (exact to 4 fractional digits), converted for the store when inserted. */
export interface SampleLine {
  sales_order_id: number;
  product_id: number;
  order_qty: number;
  unit_price: number;
  unit_price_discount: number;
  line_total: number;
}

const discounts = [0, 0, 0, 0, 0.02, 0.05, 0.1, 0.15];

/**
 * An order's 1 to 10 lines, from a generator seeded by the order's id (so they do not depend on the other orders):
 * web orders few of each product at list price, store orders more, sometimes discounted.
 */
export function sampleLines(salesOrderId: number, online: boolean): SampleLine[] {
  const r = random(salesOrderId * 7919);
  return Array.from({ length: r.int(1, 10) }, () => {
    const product = r.pick(activeProducts);
    const order_qty = online ? r.int(1, 2) : r.int(1, 12);
    const unit_price_discount = online ? 0 : r.pick(discounts);
    const unit_price = product.listPrice;
    const line_total = lineTotalOf(order_qty, unit_price, unit_price_discount).toNumber();
    return { sales_order_id: salesOrderId, product_id: product.productId, order_qty, unit_price, unit_price_discount, line_total };
  });
}

/** An order's header totals from its lines: tax 8 % and freight 2.5 % of the subtotal, rounded half away from zero. */
export function sampleTotals(lines: readonly SampleLine[]) {
  const subTotal = lines.reduce((sum, l) => sum.plus(l.line_total), new Decimal(0));
  const taxAmt = subTotal.times('0.08').round(4, Decimal.roundHalfUp);
  const freight = subTotal.times('0.025').round(4, Decimal.roundHalfUp);
  return { subTotal: subTotal.toNumber(), taxAmt: taxAmt.toNumber(), freight: freight.toNumber(), totalDue: subTotal.plus(taxAmt).plus(freight).toNumber() };
}

/** A sample order as generated: its row (amounts as `toMoney` gives them) and its lines. */
export type SampleOrderRow = Insertable<SalesOrderTable> & { sales_order_id: number; lines: SampleLine[] };

export function generateOrders(
  customers: SampleCustomer[], count = SAMPLE_ORDER_COUNT, toDate: (d: Date) => string | Date, toBool: (b: boolean) => number | boolean,
  toMoney: (n: number) => DbMoney = (n) => n,
): SampleOrderRow[] {
  const r = random(42);
  const peopleByTerritory = new Map<number, number[]>();
  for (const [id, , territory, active] of salesPeople) {
    if (territory && active) (peopleByTerritory.get(territory) ?? peopleByTerritory.set(territory, []).get(territory)!).push(id);
  }
  const span = (LAST_DAY - FIRST_DAY) / DAY;
  const orders: SampleOrderRow[] = [];
  for (let i = 0; i < count; i++) {
    const id = FIRST_ORDER_ID + i;
    // Orders grow over time: later days are more likely, like a growing business.
    const day = Math.floor(Math.sqrt(r.next()) * span);
    const orderDate = new Date(FIRST_DAY + day * DAY);
    const customer = r.pick(customers);
    const online = r.next() < 0.7;
    const ageDays = span - day;
    const roll = r.next();
    const status = ageDays > 45
      ? roll < 0.9 ? 5 : roll < 0.95 ? 6 : 4
      : roll < 0.3 ? 1 : roll < 0.55 ? 2 : roll < 0.7 ? 3 : roll < 0.95 ? 5 : 6;
    const shipDate = status === 5 ? new Date(orderDate.getTime() + r.int(3, 9) * DAY) : null;
    // The draws that once made the amount, kept so that every other field of the sample stays as it was.
    if (online) r.next(); else { r.next(); r.next(); }
    const lines = sampleLines(id, online);
    const totals = sampleTotals(lines);
    orders.push({
      sales_order_id: id,
      sales_order_number: `SO${id}`,
      status,
      order_date: toDate(orderDate),
      due_date: toDate(new Date(orderDate.getTime() + 12 * DAY)),
      ship_date: shipDate && toDate(shipDate),
      customer_id: customer.customer_id,
      territory_id: customer.territory_id,
      sales_person_id: online ? null : r.pick(peopleByTerritory.get(customer.territory_id) ?? [274]),
      sub_total: toMoney(totals.subTotal),
      tax_amt: toMoney(totals.taxAmt),
      freight: toMoney(totals.freight),
      total_due: toMoney(totals.totalDue),
      online_order_flag: toBool(online),
      purchase_order_number: online ? null : `PO${String(r.int(1e9, 9.99e12))}`,
      account_number: customer.account_number,
      comment: r.next() < 0.03 ? r.pick(comments) : null,
      revision_number: 1,
      modified_date: toDate(shipDate ?? orderDate),
      lines,
    });
  }
  return orders;
}

/** Reference data every database needs, sample or not; runs inside the migration that creates its tables. */
export async function insertReferenceData(db: Kysely<SalesTables>, values: SqlValues): Promise<void> {
  await db.insertInto('sales_order_status').values(statuses.map(([status_id, name]) => ({ status_id, name, is_active: values.bool(true) }))).execute();
  await db.insertInto('sales_territory').values(territories.map(([territory_id, name, country_region_code, territory_group]) => ({ territory_id, name, country_region_code, territory_group }))).execute();
  await db.insertInto('sales_person').values(salesPeople.map(([sales_person_id, name, territory_id, active]) => ({ sales_person_id, name, territory_id, is_active: values.bool(active) }))).execute();
}

/** Fills a database that has no customers and no orders; answers how many orders it wrote (0 when not empty). */
export async function seedSampleData(storage: Storage): Promise<number> {
  const db = storage.db.withTables<SalesTables>();
  const { values } = storage;
  const customer = await db.selectFrom('customer').select('customer_id').limit(1).executeTakeFirst();
  const order = await db.selectFrom('sales_order').select('sales_order_id').limit(1).executeTakeFirst();
  if (customer || order) return 0;
  const customers = generateCustomers();
  const orders = generateOrders(customers, SAMPLE_ORDER_COUNT, values.date, values.bool, (n) => values.money(n));
  const lines: Insertable<SalesOrderDetailTable>[] = orders.flatMap((o) => o.lines.map((l) => ({
    ...l, unit_price: values.money(l.unit_price), unit_price_discount: values.money(l.unit_price_discount), line_total: values.money(l.line_total),
  })));
  await inTransaction(db, async (trx) => {
    for (let i = 0; i < customers.length; i += 500) await trx.insertInto('customer').values(customers.slice(i, i + 500)).execute();
    for (let i = 0; i < orders.length; i += 500) {
      await trx.insertInto('sales_order').values(orders.slice(i, i + 500).map(({ lines: _, ...order }) => order)).execute();
    }
    // Multi-row inserts of 1,000 lines (7,000 parameters: within both stores' limits): ~66 statements for the sample.
    for (let i = 0; i < lines.length; i += 1000) await trx.insertInto('sales_order_detail').values(lines.slice(i, i + 1000)).execute();
    // Explicit ids may bypass the store's numbering; move it past them so new orders get fresh ids. The same for
    // customers once their id is an identity (the customer module's 0001-customer); a no-op before.
    await storage.dialect.syncIdentity(trx, 'sales_order', 'sales_order_id');
    await storage.dialect.syncIdentity(trx, 'customer', 'customer_id');
  });
  // Fresh statistics: without them the planners guess a bulk-loaded table is tiny and pick slow plans
  // (PostgreSQL's list query went from 16 ms to under 1 ms).
  await sql`analyze`.execute(db);
  return orders.length;
}
