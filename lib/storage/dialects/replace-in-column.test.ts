import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { describeStores } from '../../testing/stores.js';
import { type TestServer, startTestServer } from '../../testing/test-server.js';
import { generationOf, trackListChanges } from '../list-changes.js';

/**
 * The dialect's replaceInColumn, what tenancy's adoption runs (lib/storage/tenant-adoption.ts), on both stores: the
 * rows changed and counted, the others kept, a value with a quote, the table's list generation moved on (kept counts
 * are read again), and on PostgreSQL both ways, an UPDATE of a few rows and the rewrite of most of a table.
 */
describeStores('storage: a column replaced from one value to another (tenancy adoption)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let db: Kysely<unknown>;
  const routesDir = mkdtempSync(join(tmpdir(), 'restlayer-replace-column-'));
  before(async () => {
    server = await startTestServer({ application: { modules: [], routesDir } });
    db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
  });
  after(async () => {
    await server?.stop();
    rmSync(routesDir, { recursive: true, force: true });
  });

  /** A table of `rows` rows, `blank` of them with '' in owner, the others 'kept'. */
  async function table(name: string, rows: number, blank: number): Promise<void> {
    const { dialect } = server.infrastructure.storage;
    await db.schema.createTable(name).addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('owner', 'varchar(40)', (c) => c.notNull()).execute();
    await trackListChanges(db, dialect, name);
    for (let id = 1; id <= rows; id++) await sql`insert into ${sql.table(name)} (id, owner) values (${id}, ${id <= blank ? '' : 'kept'})`.execute(db);
  }
  const owners = async (name: string) => (await sql<{ owner: string; n: number | string }>`select owner, count(*) as n from ${sql.table(name)}
    group by owner order by owner`.execute(db)).rows.map((r) => `${r.owner}:${Number(r.n)}`);
  const generation = async (name: string) => (await sql<{ g: string | number | null }>`select ${generationOf([name])} as g`.execute(db)).rows[0].g;

  for (const [title, rows, blank] of [['a few rows of many (an UPDATE)', 20, 2], ['most of a table (PostgreSQL rewrites it)', 20, 15]] as const) {
    it(`replaces ${title}, answers how many, keeps the others and moves the list generation on`, async () => {
      const name = `replace_probe_${blank}`;
      await table(name, rows, blank);
      const before = await generation(name);
      const { dialect } = server.infrastructure.storage;
      expect(await dialect.replaceInColumn(db, name, 'owner', '', "o'brien")).to.equal(blank);
      expect(await owners(name)).to.deep.equal([`kept:${rows - blank}`, `o'brien:${blank}`]);
      expect(Number(await generation(name))).to.be.greaterThan(Number(before));
      // Nothing left to replace: nothing changed, as at every later start.
      expect(await dialect.replaceInColumn(db, name, 'owner', '', "o'brien")).to.equal(0);
    });
  }
});
