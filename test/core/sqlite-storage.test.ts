import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { sql } from 'kysely';
import { type AppConfig, type Storage, StoredDate, allModules, loadConfig, openStorage } from 'restlayer';
import { application } from '../../services/index.js';
import type { SalesTables } from '../../services/sales-order/sales-order-tables.js';
import { salesDb } from '../support/sales-db.js';

/** The configuration of an SQLite store at `path`, without sample data. */
const sqliteConfig = (path: string): AppConfig =>
  loadConfig({ env: { NODE_ENV: 'test' }, overrides: { Storage: { Provider: 'sqlite', Sqlite: { Path: path }, SampleData: false } } }).config;

describe('embedded storage (SQLite)', () => {
  let dir: string;
  let storage: Storage;
  let db: ReturnType<typeof salesDb>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'restlayer-sqlite-'));
    storage = await openStorage(sqliteConfig(join(dir, 'store.db')), allModules(application.modules));
    db = salesDb(storage);
  });

  after(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const personQuery = () => db.selectFrom('sales_person').select(['name', 'territory_id']).where('sales_person_id', '=', 9001).compile();

  it('answers rows as plain objects named by the select list, nulls included, for reads and writes alike', async () => {
    await db.insertInto('sales_person').values({ sales_person_id: 9001, name: 'Ann', territory_id: null, is_active: 1 }).execute();
    const rows = await db.selectFrom('sales_person').select(['sales_person_id as id', 'name', 'territory_id']).where('sales_person_id', '=', 9001).execute();
    expect(rows).to.deep.equal([{ id: 9001, name: 'Ann', territory_id: null }]);
    expect(Object.getPrototypeOf(rows[0])).to.equal(Object.prototype);
    const { rows: counted } = await sql<{ n: number }>`select count(*) as n from sales_person where sales_person_id = 9001`.execute(db);
    expect(counted).to.deep.equal([{ n: 1 }]);
  });

  it('a `*` select names its columns anew after another process rebuilt the table under it', async () => {
    await sql`create table shuffled (a text, b integer)`.execute(db);
    await sql`insert into shuffled values ('x', 1)`.execute(db);
    const all = () => sql<Record<string, unknown>>`select * from shuffled`.execute(db).then((r) => r.rows);
    expect(await all()).to.deep.equal([{ a: 'x', b: 1 }]);
    // Another connection (a newer CLI migrating the file) rebuilds the table with its columns the other way round.
    const other = new Database(join(dir, 'store.db'));
    other.exec("create table shuffled_new (b integer, a text); insert into shuffled_new select b, a from shuffled; drop table shuffled; alter table shuffled_new rename to shuffled;");
    other.close();
    expect(await all()).to.deep.equal([{ b: 1, a: 'x' }]);
  });

  it('readNow reads at once on an idle connection, and declines while a transaction holds it', async () => {
    expect(storage.readNow!(personQuery())).to.deep.equal([{ name: 'Ann', territory_id: null }]);
    let during: unknown[] | undefined = [];
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('sales_person').set({ name: 'Ann B.' }).where('sales_person_id', '=', 9001).execute();
      // The transaction's uncommitted change must not leak into a read made beside it.
      during = storage.readNow!(personQuery());
    });
    expect(during).to.equal(undefined);
    expect(storage.readNow!(personQuery())).to.deep.equal([{ name: 'Ann B.', territory_id: null }]);
  });

  it('the reader reads in its own process what db committed, not what a transaction has not, and refuses writes', async () => {
    const reader = storage.reader.withTables<SalesTables>();
    expect(reader).not.to.equal(storage.db);
    const names = () => reader.selectFrom('sales_person').select(['name', 'territory_id']).where('sales_person_id', '=', 9001).execute();
    expect(await names()).to.deep.equal([{ name: 'Ann B.', territory_id: null }]);
    let during: unknown[] = [];
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('sales_person').set({ name: 'Ann C.' }).where('sales_person_id', '=', 9001).execute();
      during = await names();
    });
    expect(during).to.deep.equal([{ name: 'Ann B.', territory_id: null }]);
    expect(await names()).to.deep.equal([{ name: 'Ann C.', territory_id: null }]);
    const write = await reader.updateTable('sales_person').set({ name: 'Eve' }).where('sales_person_id', '=', 9001).execute().catch((err: Error) => err);
    expect(String(write)).to.match(/write through storage.db/);
  });

  it('an in-memory database reads through db: no other connection could see it', async () => {
    const memory = await openStorage(sqliteConfig(':memory:'), [], { prepare: false });
    try {
      expect(memory.reader).to.equal(memory.db);
    } finally {
      await memory.close();
    }
  });
});

describe('SQLite date values', () => {
  let sqliteValues: Storage['values'];
  let memory: Storage;
  before(async () => {
    memory = await openStorage(sqliteConfig(':memory:'), [], { prepare: false });
    sqliteValues = memory.values;
  });
  after(() => memory.close());

  it('a date read from canonical ISO text serialises to that text, and to its new instant once changed', () => {
    const text = '2025-12-30T08:15:00.250Z';
    const date = sqliteValues.toDate(text);
    expect(date).to.be.instanceOf(StoredDate).and.instanceOf(Date);
    expect(date.getTime()).to.equal(Date.parse(text));
    expect(JSON.stringify({ date })).to.equal(`{"date":"${text}"}`);
    date.setUTCFullYear(2024);
    expect(JSON.stringify(date)).to.equal('"2024-12-30T08:15:00.250Z"');
  });

  it('other date text becomes a plain Date with the same instant', () => {
    const date = sqliteValues.toDate('2025-12-30 08:15:00Z');
    expect(date).not.to.be.instanceOf(StoredDate);
    expect(date.toISOString()).to.equal('2025-12-30T08:15:00.000Z');
  });
});
