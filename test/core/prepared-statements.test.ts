import { expect } from 'chai';
import { type Kysely, type Storage, allModules, loadConfig, openStorage, sql } from 'restlayer';
import { application } from '../../services/index.js';
import type { TestDatabase } from 'restlayer/testing';
import { createTestDatabase, testProvider } from '../support/test-stores.js';
import { until } from '../support/wait.js';
import { describeStores } from '../support/stores.js';

/**
 * Storage:Postgres:PreparedStatements (lib/storage/prepared-statements.ts): statements go named, so each connection
 * parses a text once; a connection that prepared its share is replaced; a statement whose result columns a migration
 * changed is sent again unprepared instead of failing. PostgreSQL only: SQLite keeps its own statement cache.
 */
describeStores('PostgreSQL prepared statements', function () {
  before(function () {
    if (testProvider !== 'postgres') this.skip();
  });
  this.timeout(60_000);
  let database: TestDatabase;
  const stores: Storage[] = [];
  const open = async (prepared: boolean) => {
    const { config } = loadConfig({
      env: { NODE_ENV: 'test' },
      overrides: { Storage: { Provider: 'postgres', Postgres: { Url: database.url, PreparedStatements: prepared }, SampleData: false } },
    });
    const storage = await openStorage(config, allModules(application.modules));
    stores.push(storage);
    return storage.db as unknown as Kysely<unknown>;
  };
  /** PostgreSQL's plan_cache_mode in a session of `db`. */
  const planCacheMode = async (db: Kysely<unknown>) => (await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(db)).rows[0].mode;
  /** The names of the statements prepared on one connection of `db`, after it ran a parameterised select. */
  const preparedOnOneConnection = (db: Kysely<unknown>) => db.connection().execute(async (conn) => {
    await sql`select ${7}::int as seven`.execute(conn);
    return (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(conn)).rows.map((r) => r.name);
  });

  // The run's hooks (test/support/hooks.ts) already refused a PostgreSQL run without a server.
  before(async () => {
    database = await createTestDatabase(false);
  });
  after(async () => {
    for (const storage of stores) await storage.close();
    await database?.drop();
  });

  it('statements are prepared under names of their own, once per connection and text', async () => {
    const names = await preparedOnOneConnection(await open(true));
    expect(names.filter((n) => n.startsWith('rl_')).length).to.be.greaterThan(0);
  });

  it('the reader\'s sessions (list pages, counts) plan each run for its values; the main pool keeps PostgreSQL\'s default', async () => {
    // With generic plans the list page's index choice stops following its values (a common status against a rare one):
    // the benchmark's page cost the database 1.16 cores instead of 0.73 (lib/storage/postgres-pool.ts, planEachRun).
    const db = await open(true);
    const { reader } = stores.at(-1)!;
    expect(await planCacheMode(reader as unknown as Kysely<unknown>)).to.equal('force_custom_plan');
    expect(await planCacheMode(db)).to.equal('auto');
  });

  it('with PreparedStatements false, none is', async () => {
    expect(await preparedOnOneConnection(await open(false))).to.deep.equal([]);
  });

  it('a statement whose columns a migration changed is answered (sent again unprepared), not failed', async () => {
    const db = await open(true);
    await sql`create table prepared_probe (id int primary key)`.execute(db);
    await sql`insert into prepared_probe values (1)`.execute(db);
    const rows = await db.connection().execute(async (conn) => {
      const read = () => sql<Record<string, unknown>>`select * from prepared_probe where id = ${1}`.execute(conn);
      await read();
      // Another connection changes the table under the statement this one prepared.
      await sql`alter table prepared_probe add column note text not null default 'added'`.execute(db);
      return (await read()).rows;
    });
    expect(rows).to.deep.equal([{ id: 1, note: 'added' }]);
  });

  it('a connection that prepared 500 statements is replaced when released', async () => {
    const db = await open(true);
    const pid = await db.connection().execute(async (conn) => {
      for (let i = 0; i <= 500; i++) await sql`select ${i}::int as n, ${sql.lit(i)} as distinct_text`.execute(conn);
      return (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn)).rows[0].pid;
    });
    await until(async () => Number((await sql<{ n: number }>`select count(*) as n from pg_stat_activity where pid = ${pid}`.execute(db)).rows[0].n) === 0,
      `backend ${pid} to end`, 10_000, 100);
  });
});
