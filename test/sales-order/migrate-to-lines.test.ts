import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { type ServiceModule, type Storage, allModules, loadConfig, openStorage, serviceModule } from 'restlayer';
import { application } from '../../services/index.js';
import { salesOrderModule } from '../../services/sales-order/module.js';
import { createTestDatabase } from 'restlayer/testing';
import { testProvider } from '../support/test-stores.js';
import { describeStores } from '../support/stores.js';

/**
 * The application as it was before order lines: the sales-order module without 0007-order-lines. A module of no
 * migrations of its own tells restlayer/testing's PostgreSQL templates (keyed by module names) this set from the
 * application's.
 */
const beforeLines: readonly ServiceModule[] = [
  ...application.modules.map((m) => m === salesOrderModule
    ? serviceModule({
      ...salesOrderModule,
      migrations: (dialect) => Object.fromEntries(Object.entries(salesOrderModule.migrations!(dialect)).filter(([name]) => name < '0007')),
    })
    : m),
  serviceModule({ name: 'before-order-lines', create: () => ({}) }),
];

/** Amounts as the binary float column held them, and what each must become. */
const amounts: [number, number][] = [[0.1 + 0.2, 0.3], [1234.56789, 1234.5679], [99.99, 99.99], [0, 0], [150000.12345, 150000.1235]];

describeStores(`migration 0007-order-lines: an existing database keeps every order's amount (${testProvider})`, () => {
  let storage: Storage | undefined;
  let cleanup: () => Promise<void> | void = () => {};
  after(async () => {
    await storage?.close();
    await cleanup();
  });

  /** Opens the store for these modules (bringing its schema up to date) and answers the migrations applied. */
  async function open(modules: readonly ServiceModule[], where: Record<string, unknown>): Promise<string[]> {
    await storage?.close();
    const lines: string[] = [];
    const config = loadConfig({ env: { NODE_ENV: 'test' }, overrides: { Storage: { ...where, SampleData: false } } }).config;
    storage = await openStorage(config, allModules(modules), { log: (line) => lines.push(line) });
    const applied = lines.find((line) => line.startsWith('database schema updated: '));
    return applied ? applied.slice('database schema updated: '.length).split(', ') : [];
  }

  it('gives each order one line of "Amount before order lines" at its totalDue, rounded to 4 digits; totals hold', async () => {
    let where: Record<string, unknown>;
    if (testProvider === 'postgres') {
      // A database of the release before lines: migrated for the older modules.
      const older = await createTestDatabase(beforeLines, false);
      cleanup = () => older.drop();
      where = { Provider: 'postgres', Postgres: { Url: older.url } };
      await open(beforeLines, where);
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'restlayer-lines-'));
      cleanup = () => rmSync(dir, { recursive: true, force: true });
      where = { Sqlite: { Path: join(dir, 'store.db') } };
      expect(await open(beforeLines, where)).to.include('sales-order/0006-key-index');
    }
    const db = () => storage!.db as unknown as Kysely<unknown>;
    const v = storage!.values;
    await sql`insert into customer (customer_id, name, account_number, territory_id) values (1, 'Before Lines', 'AW-1', 1)`.execute(db());
    for (const [i, [amount]] of amounts.entries()) {
      await sql`insert into sales_order (sales_order_id, sales_order_number, status, order_date, due_date, customer_id, total_due,
        online_order_flag, revision_number, modified_date)
        values (${i + 1}, ${`SO${i + 1}`}, 5, ${v.date(new Date(Date.UTC(2024, 0, i + 1)))}, ${v.date(new Date(Date.UTC(2024, 0, i + 13)))}, 1,
          ${amount}, ${v.bool(true)}, 1, ${v.date(new Date(Date.UTC(2024, 0, i + 1)))})`.execute(db());
    }

    expect(await open(application.modules, where)).to.deep.equal(['sales-order/0007-order-lines', 'sales-order/0008-scope-indexes', 'sales-order/0009-soft-delete', 'sales-order/0010-soft-delete-list-indexes', 'sales-order/0011-tenant', 'sales-order/0012-tenant-probe', 'sales-order/0013-product-changes']);
    const { rows } = await sql<{ id: number; total_due: string | number; sub_total: string | number; tax_amt: string | number; freight: string | number }>`
      select sales_order_id as id, total_due, sub_total, tax_amt, freight from sales_order order by sales_order_id`.execute(db());
    expect(rows.map((r) => [v.toMoney(r.total_due), v.toMoney(r.sub_total), v.toMoney(r.tax_amt), v.toMoney(r.freight)]))
      .to.deep.equal(amounts.map(([, exact]) => [exact, exact, 0, 0]));
    const { rows: lines } = await sql<{ id: number; product_id: number; order_qty: number; unit_price: string | number; line_total: string | number }>`
      select sales_order_id as id, product_id, order_qty, unit_price, line_total from sales_order_detail order by sales_order_id`.execute(db());
    expect(lines.map((l) => [l.id, l.product_id, l.order_qty, v.toMoney(l.unit_price), v.toMoney(l.line_total)]))
      .to.deep.equal(amounts.map(([, exact], i) => [i + 1, 1, 1, exact, exact]));
    const { rows: product } = await sql<{ name: string; is_active: boolean | number }>`select name, is_active from product where product_id = 1`.execute(db());
    expect(product.map((p) => [p.name, v.toBool(p.is_active)])).to.deep.equal([['Amount before order lines', false]]);
    // The exact criterion finds an order by its old amount, rounded.
    const { rows: found } = await sql<{ id: number }>`select sales_order_id as id from sales_order where total_due = ${v.money(0.3)}`.execute(db());
    expect(found.map((r) => r.id)).to.deep.equal([1]);
    // Nothing is applied twice.
    expect(await open(application.modules, where)).to.deep.equal([]);
  });
});
