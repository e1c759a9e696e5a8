import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { CompiledQuery } from 'kysely';
import { MainReadBudget } from '../../lib/storage/sqlite-read-budget.js';
import { slowReadRoutesDir } from '../support/api.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { FAST_HASH } from '../support/users.js';
import { until } from '../support/wait.js';

/** The reader processes this test process started (SQLite starts them on first use). */
function readerPids(): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), '-f', 'sqlite-reader-process'], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

const ok = (reply: Reply, what: string) => expect(reply.status, `${what}: ${reply.text}`).to.equal(200);

// lib/storage/sqlite-read-budget.ts: list queries first run on the main connection, within a few milliseconds.
const count = (upTo: number, term = ' and restlayer_within_budget()') => CompiledQuery.raw(
  `with recursive c(x) as (select 1 union all select x + 1 from c where x < ${upTo}${term}) select count(*) as n from c`, []);

describe('the main thread budget of SQLite reader queries (lib/storage/sqlite-read-budget.ts)', () => {
  const database = new Database(':memory:');
  // 50 ms: far above what 1,000 rows take even on a loaded machine (at 5 ms a scheduling hiccup failed the first
  // test now and then), far below the half minute of the overrunning count.
  const budget = new MainReadBudget(database, 50);
  let reads = 0;
  const read = (query: CompiledQuery) => {
    reads++;
    return database.prepare(query.sql).all(...query.parameters);
  };
  after(() => database.close());

  it('answers a query that ends within the budget', () => {
    expect(budget.tryRun(count(1_000), read)).to.deep.equal([{ n: 1000 }]);
  });

  it('stops one that overruns it (a count that would take half a minute), and sends it to the readers the next times', () => {
    reads = 0;
    expect(budget.tryRun(count(200_000_000), read)).to.equal(undefined);
    expect(budget.tryRun(count(200_000_000), read)).to.equal(undefined);
    expect(reads).to.equal(1);
    // Other queries still run here, and after the budgeted try queries on the main connection run unbounded again.
    expect(budget.tryRun(count(2_000), read)).to.deep.equal([{ n: 2000 }]);
    expect(database.prepare(count(100_000).sql).all()).to.deep.equal([{ n: 100_000 }]);
  });

  it('leaves queries without the budget term to the readers, and every query when the budget is 0', () => {
    reads = 0;
    expect(budget.tryRun(count(10, ''), read)).to.equal(undefined);
    expect(new MainReadBudget(new Database(':memory:'), 0).tryRun(count(10), read)).to.equal(undefined);
    expect(reads).to.equal(0);
  });

  it('passes on errors other than the budget\'s', () => {
    expect(() => budget.tryRun(CompiledQuery.raw('select nope from nowhere where restlayer_within_budget()', []), read)).to.throw(/no such table/);
  });
});

if (testProvider === 'sqlite') {
  describe('SQLite lists on the main thread, slow reads in the readers (issue 15)', function () {
    this.timeout(60_000);
    const config = { ...FAST_HASH, Storage: { QueryTimeoutSeconds: 2, Sqlite: { ReadWorkers: 1, MainThreadReadMilliseconds: 5 } } };

    // Servers of earlier tests kill their readers when they stop; wait until those are gone, so any seen here are ours.
    before(() => until(() => readerPids().length === 0, 'the reader processes of earlier tests to end'));

    it('answers fast list pages, filtered counts and cursor pages on the main connection: no reader process starts', async () => {
      const server = await startTestServer({ logLevel: 'error', config });
      try {
        const paths = [
          '/sales-order?take=50&status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&getTotalCount=true',
          '/sales-order?take=20&customerName=Ma&customerName.operator=SW&getTotalCount=true',
          '/sales-order?take=20&skip=600',
          '/sales-order?take=20&cursor=',
          '/customer?take=10&name=A&name.operator=SW&getTotalCount=true',
        ];
        // Twice: the second count is answered from the kept count after its generation is read, also on the main thread.
        for (const path of [...paths, ...paths]) ok(await server.call(path), path);
        expect(readerPids()).to.deep.equal([]);
      } finally {
        await server.stop();
      }
    });

    it('sends a count that reads the trigram index (CN) to a reader: the index\'s work comes before any row, out of the budget\'s reach', async () => {
      const server = await startTestServer({ logLevel: 'error', config });
      try {
        ok(await server.call('/customer?take=5&name=son&name.operator=SW&getTotalCount=true'), 'SW');
        expect(readerPids()).to.deep.equal([]);
        ok(await server.call('/customer?take=5&name=son&name.operator=CN&getTotalCount=true'), 'CN');
        expect(readerPids()).to.have.length(1);
      } finally {
        await server.stop();
      }
    });

    it('stops a list query that overruns the budget on the main thread and runs it in a reader, up to Storage:QueryTimeoutSeconds', async () => {
      const server = await startTestServer({ routesDir: slowReadRoutesDir, logLevel: 'error', config });
      try {
        const fast = await server.call('/slow-read/budgeted-fast', { token: null });
        ok(fast, 'budgeted-fast');
        expect(fast.body.result).to.deep.equal([{ n: 1000 }]);
        expect(readerPids()).to.deep.equal([]);
        const slow = server.call('/slow-read/budgeted-slow', { token: null });
        await until(() => readerPids().length === 1, 'a reader process to take the slow query');
        // The event loop is free again after the budget: cheap requests answer while the reader counts.
        for (const path of ['/health/live', '/lookup-table/operators']) ok(await server.call(path), path);
        const reply = await slow;
        expect(reply.status).to.equal(503);
        expect(reply.body.messages.map((m) => m.code)).to.deep.equal(['Request_Timeout']);
      } finally {
        await server.stop();
      }
    });
  });
}
