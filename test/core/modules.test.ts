import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import {
  type ServiceModule, type Storage, allModules, createLogger, loadConfig, openStorage, serviceModule, startServer,
} from 'restlayer';
import { application } from '../../services/index.js';

const names = async <DB>(db: Kysely<DB>, table: string) =>
  (await sql<{ name: string }>`select name from ${sql.table(table)} order by name`.execute(db)).rows.map((r) => r.name);

const notesModule = serviceModule({
  name: 'notes',
  migrations: () => ({
    '0001-notes': {
      async up(db) {
        await db.schema.createTable('note').addColumn('note_id', 'integer', (c) => c.primaryKey()).addColumn('text', 'text').execute();
      },
    },
  }),
  create: () => ({ notes: { count: () => 0 } }),
});

/** A module's migration history (docs/services.md, "Migrations"). */
const historyTable = (module: string) => `restlayer_migration_${module.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}`;

describe('service modules: migrations per module', () => {
  let dir: string;
  let storage: Storage | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'restlayer-modules-'));
  });
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Opens the store as a server does (openStorage: the schema brought up to date) and answers the migrations it
   * applied, from its log line; the store stays open for the test's queries until the next call.
   */
  async function migrateModules(mods: readonly ServiceModule[]): Promise<string[]> {
    await storage?.close();
    const lines: string[] = [];
    const config = loadConfig({ env: { NODE_ENV: 'test' }, overrides: { Storage: { Sqlite: { Path: join(dir, 'store.db') }, SampleData: false } } }).config;
    storage = await openStorage(config, mods, { log: (line) => lines.push(line) });
    const applied = lines.find((line) => line.startsWith('database schema updated: '));
    return applied ? applied.slice('database schema updated: '.length).split(', ') : [];
  }
  const db = () => storage!.db;

  const modules = allModules(application.modules);

  it('records each module in a history of its own and applies nothing twice', async () => {
    const applied = await migrateModules(modules);
    expect(applied).to.deep.equal(['auth/0002-auth', 'auth/0004-ending-access', 'auth/0005-user-attributes', 'idempotency/0001-idempotency-key', 'idempotency/0002-idempotency-key-claimed-by', 'idempotency/0003-idempotency-key-language', 'audit/0001-audit-entry', 'sales-order/0001-sales', 'sales-order/0003-list-indexes', 'sales-order/0004-list-keys', 'sales-order/0005-list-changes', 'sales-order/0006-key-index', 'sales-order/0007-order-lines', 'sales-order/0008-scope-indexes', 'sales-order/0009-soft-delete', 'sales-order/0010-soft-delete-list-indexes', 'sales-order/0011-tenant', 'sales-order/0012-tenant-probe', 'sales-order/0013-product-changes', 'customer/0001-customer', 'customer/0002-list-keys', 'customer/0003-list-changes', 'customer/0004-key-index', 'customer/0005-name-contains', 'customer/0006-account-number-unique', 'customer/0007-soft-delete', 'customer/0008-soft-delete-list-indexes', 'customer/0009-tenant']);
    expect(await names(db(), historyTable('auth'))).to.deep.equal(['0002-auth', '0004-ending-access', '0005-user-attributes']);
    expect(await names(db(), historyTable('sales-order'))).to.deep.equal(['0001-sales', '0003-list-indexes', '0004-list-keys', '0005-list-changes', '0006-key-index', '0007-order-lines', '0008-scope-indexes', '0009-soft-delete', '0010-soft-delete-list-indexes', '0011-tenant', '0012-tenant-probe', '0013-product-changes']);
    expect(await migrateModules(modules)).to.deep.equal([]);
  });

  it('a module added later gets its own migrations, and only those, applied', async () => {
    await migrateModules(modules);
    expect(await migrateModules([...modules, notesModule])).to.deep.equal(['notes/0001-notes']);
    expect(await names(db(), historyTable('notes'))).to.deep.equal(['0001-notes']);
  });

  it('a database made with one history for every table keeps its data and is not migrated again', async () => {
    await migrateModules(modules);
    // Rebuild the layout of the releases before per-module histories: every name in kysely_migration.
    await sql`create table kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null)`.execute(db());
    for (const module of ['auth', 'sales-order']) {
      await sql`insert into kysely_migration select name, timestamp from ${sql.table(historyTable(module))}`.execute(db());
      await sql`drop table ${sql.table(historyTable(module))}`.execute(db());
    }
    await sql`insert into sales_order_status (status_id, name, is_active) values (7, 'Kept', 1)`.execute(db());
    expect(await migrateModules(modules)).to.deep.equal([]);
    expect(await names(db(), historyTable('sales-order'))).to.deep.equal(['0001-sales', '0003-list-indexes', '0004-list-keys', '0005-list-changes', '0006-key-index', '0007-order-lines', '0008-scope-indexes', '0009-soft-delete', '0010-soft-delete-list-indexes', '0011-tenant', '0012-tenant-probe', '0013-product-changes']);
    const kept = await sql<{ name: string }>`select name from sales_order_status where status_id = 7`.execute(db());
    expect(kept.rows).to.deep.equal([{ name: 'Kept' }]);
  });
});

describe('service modules: the text of an applied migration is checked at each start (issue 42)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'restlayer-checksums-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The notes module as first written, and with its first migration rewritten (`new service notes --force`, an edit of 0001). */
  const first = notesModule;
  const rewritten = serviceModule({
    ...first,
    migrations: () => ({
      '0001-notes': {
        async up(db) {
          await db.schema.createTable('note').addColumn('note_id', 'integer', (c) => c.primaryKey()).addColumn('reference', 'text').execute();
        },
      },
    }),
  });

  /** Starts a server on the one database with `notes` and answers the warnings it logged. */
  async function warningsOfStart(notes: ServiceModule): Promise<string[]> {
    const lines: string[] = [];
    const config = loadConfig({ env: { NODE_ENV: 'test' }, overrides: { Storage: { Sqlite: { Path: join(dir, 'store.db') }, SampleData: false } } }).config;
    const running = await startServer({
      application: { ...application, modules: [...application.modules, notes] }, config, log: createLogger('warn', (line) => lines.push(line)), port: 0, host: '127.0.0.1',
    });
    await running.close();
    return lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
  }

  it('warns at start when a migration that ran has another text now, at every start, and never for one unchanged', async () => {
    expect(await warningsOfStart(first)).to.deep.equal([]);
    expect(await warningsOfStart(first)).to.deep.equal([]);
    const warning = 'migration notes/0001-notes has changed since this database ran it: the database keeps what the text it ran made, and a migration '
      + 'never runs twice. Put the change in a new migration; or, for a development database, start it over (restlayer db reset)';
    expect(await warningsOfStart(rewritten)).to.deep.equal([warning]);
    // The database still has what the first text made: said again until it is started over.
    expect(await warningsOfStart(rewritten)).to.deep.equal([warning]);
    expect(await warningsOfStart(first)).to.deep.equal([]);
  });

  it('a database whose migrations ran before checksums were kept takes their texts as they are now, without a warning', async () => {
    await warningsOfStart(first);
    const config = loadConfig({ env: { NODE_ENV: 'test' }, overrides: { Storage: { Sqlite: { Path: join(dir, 'store.db') }, SampleData: false } } }).config;
    const storage = await openStorage(config, [], { prepare: false });
    await sql`drop table restlayer_migration_checksum`.execute(storage.db);
    await storage.close();
    expect(await warningsOfStart(rewritten)).to.deep.equal([]);
    expect(await warningsOfStart(first)).to.have.length(1);
  });
});

describe('service modules: registration', () => {
  const config = () => loadConfig({ env: { NODE_ENV: 'test' }, overrides: { Storage: { Sqlite: { Path: ':memory:' }, SampleData: false } } }).config;
  const start = (modules: readonly ServiceModule[]) =>
    startServer({ application: { ...application, modules }, config: config(), log: createLogger('error', () => {}), port: 0, host: '127.0.0.1' });

  it('refuses two modules of one name, naming it', async () => {
    let error: unknown;
    await start([...application.modules, { name: 'sales-order' }]).catch((err: unknown) => (error = err));
    expect(String(error)).to.match(/two service modules are named 'sales-order'/);
  });

  it("refuses a module whose service key another module or the layer already provides", async () => {
    let error: unknown;
    await start([...application.modules, serviceModule({ name: 'shadow', create: () => ({ users: {} }) })]).catch((err: unknown) => (error = err));
    expect(String(error)).to.match(/'shadow' provides 'users'/);
  });

  it('serves a module added next to the others: its services are created and reachable', async () => {
    const running = await start([...application.modules, notesModule]);
    try {
      expect((running.services as unknown as { notes: { count(): number } }).notes.count()).to.equal(0);
    } finally {
      await running.close();
    }
  });
});
