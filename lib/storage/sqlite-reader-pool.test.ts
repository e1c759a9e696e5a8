import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { CompiledQuery } from 'kysely';
import { SqliteReaderPool } from './sqlite-reader-pool.js';

const count = (upTo: number) => CompiledQuery.raw(`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${upTo}) select count(*) as n from c`, []);

/**
 * sqlite-reader-pool.ts: a query's time limit is the query's (and its wait for a free reader), not the start of the
 * reader process it goes to. The start is made slow on purpose: NODE_OPTIONS (read by the forked process as it
 * starts) preloads a module that sleeps in the process's main thread (not again in its query thread, which preloads it
 * too), as a busy machine makes a start take seconds.
 */
describe('the SQLite reader pool: time limits and the start of a reader', function () {
  this.timeout(20_000);
  const dir = mkdtempSync(join(tmpdir(), 'restlayer-reader-pool-'));
  const path = join(dir, 'read.db');
  const sleeper = join(dir, 'slow-start.mjs');
  const pools: SqliteReaderPool[] = [];

  before(() => {
    const database = new Database(path);
    database.pragma('journal_mode = WAL');
    database.exec('create table t (x integer); insert into t values (1), (2), (3)');
    database.close();
    writeFileSync(sleeper, "import { isMainThread } from 'node:worker_threads';\n"
      + 'if (isMainThread) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.RESTLAYER_TEST_START_MS));\n');
  });
  after(() => {
    for (const pool of pools) pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A pool of one reader whose process, started by this first query, takes at least `startMs` to start. */
  function slowStart(timeoutMs: number, startMs: number, query: CompiledQuery, startTimeoutMs?: number): Promise<unknown[]> {
    const pool = new SqliteReaderPool(path, { size: 1, timeoutMs, startTimeoutMs, lockWaitMs: 1000 });
    pools.push(pool);
    const kept = { options: process.env.NODE_OPTIONS, start: process.env.RESTLAYER_TEST_START_MS };
    process.env.NODE_OPTIONS = `${kept.options ?? ''} --import "${pathToFileURL(sleeper).href}"`.trim();
    process.env.RESTLAYER_TEST_START_MS = String(startMs);
    try {
      // The reader process is forked inside run(), with the environment as it is now.
      return pool.run(query);
    } finally {
      restore('NODE_OPTIONS', kept.options);
      restore('RESTLAYER_TEST_START_MS', kept.start);
    }
  }
  function restore(name: string, value: string | undefined): void {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }

  it('answers a quick query whose reader took longer than the time limit to start', async () => {
    expect(await slowStart(2_000, 2_500, CompiledQuery.raw('select sum(x) as s from t', []))).to.deep.equal([{ s: 6 }]);
  });

  it('still stops a query that runs past the limit once its reader has started', async () => {
    const failed = await slowStart(500, 600, count(500_000_000)).then(() => undefined, (err: Error & { code?: string }) => err);
    expect(failed?.message).to.equal('The query was stopped after 0.5 seconds (Storage:QueryTimeoutSeconds).');
    expect(failed?.code).to.equal('SQLITE_INTERRUPT');
  });

  it('gives up on a reader that does not start within the limit of its own', async () => {
    const failed = await slowStart(5_000, 5_000, count(3), 1_000).then(() => undefined, (err: Error & { code?: string }) => err);
    expect(failed?.message).to.equal('The read connection did not start within 1 seconds.');
    expect(failed?.code).to.equal('SQLITE_INTERRUPT');
  });
});
