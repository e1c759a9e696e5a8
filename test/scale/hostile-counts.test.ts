import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { slowReadRoutesDir } from '../support/api.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { FAST_HASH } from '../support/users.js';
import { until } from '../support/wait.js';
import { WHY_ONE_STORE, describeOneStore, serial } from '../support/stores.js';

/** The reader processes this test process started (SQLite starts them on first use). */
function readerPids(): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), '-f', 'sqlite-reader-process'], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

const ok = (reply: Reply, what: string) => expect(reply.status, `${what}: ${reply.text.slice(0, 300)}`).to.equal(200);
const long = 'a'.repeat(7_990);
// A long time limit: a reader still busy with the query of a client that left shows for that long.
// A generous main thread budget: a page or filtered count that may run there does, however busy the machine is.
const config = { ...FAST_HASH, Storage: { QueryTimeoutSeconds: 60, Sqlite: { ReadWorkers: 2, MainThreadReadMilliseconds: 1_000 } } };

// Issue 20, defect 1: a list count ran on the main SQLite connection, unbounded, whatever its cost.
describeOneStore(serial(`hostile list counts (issue 20), on ${testProvider}`), WHY_ONE_STORE.scale, function () {
  this.timeout(90_000);
  let server: TestServer;

  before(async () => {
    // Servers of earlier tests kill their readers when they stop; wait until those are gone, so any seen here are ours.
    if (testProvider === 'sqlite') await until(() => readerPids().length === 0, 'the reader processes of earlier tests to end');
    server = await startTestServer({ logLevel: 'error', config });
    // The data: 300 customers named with 100 × 'a' (the most the name holds).
    for (let i = 0; i < 300; i++) {
      const reply = await server.call('/customer', { method: 'POST', body: { name: 'a'.repeat(100) } });
      expect(reply.status, reply.text).to.equal(201);
    }
  });
  after(async () => {
    await server?.stop();
  });

  it('answers a text criterion longer than any value its field holds with an empty list, reading nothing', async () => {
    const paths = [
      `/customer?name.operator=CN&name=${long}&getTotalCount=true&take=1`,
      `/sales-order?customerName.operator=CN&customerName=${long}&getTotalCount=true&take=1`,
      `/customer?name.operator=SW&name=${'a'.repeat(101)}&getTotalCount=true`,
      `/customer?name=${'a'.repeat(101)}&getTotalCount=true`,
      `/customer?accountNumber.operator=CN&accountNumber=${'A'.repeat(16)}&getTotalCount=true`,
    ];
    for (const path of paths) {
      const reply = await server.call(path);
      ok(reply, path.slice(0, 60));
      expect(reply.body.totalCount, path.slice(0, 60)).to.equal(0);
      expect(reply.body.result).to.deep.equal([]);
    }
    // Nothing was read: on SQLite, not even a reader process was started (the CN count and page would each need one).
    if (testProvider === 'sqlite') expect(readerPids()).to.deep.equal([]);
    // A criterion as long as the field still matches.
    const full = await server.call(`/customer?name.operator=CN&name=${'a'.repeat(100)}&getTotalCount=true&take=1`);
    ok(full, 'CN of 100');
    expect(full.body.totalCount).to.equal(300);
    const negated = await server.call(`/customer?name.operator=NCN&name=${long}&getTotalCount=true&take=1`);
    ok(negated, 'NCN');
    expect(negated.body.totalCount).to.be.greaterThan(300);
  });

  if (testProvider === 'sqlite') {
    /** Ends the idle readers, then sends `path`: whether a reader process ran part of it (a hand-off to the readers). */
    async function handedToReader(path: string): Promise<boolean> {
      for (const pid of readerPids()) process.kill(pid, 'SIGKILL');
      await until(() => readerPids().length === 0, 'the idle readers to end');
      ok(await server.call(path), path);
      return readerPids().length > 0;
    }

    it('counts a whole table and a trigram (CN) match in a reader, while pages and filtered counts stay on the main connection', async () => {
      // More customers than a CN page reads through the trigram index (5,000): that page then walks on the main
      // connection, so only the count can start a reader. Written straight into the file, as another program would.
      const file = new Database(server.config.Storage.Sqlite.Path);
      try {
        file.pragma('busy_timeout = 5000');
        file.prepare(`with recursive n(x) as (select 1 union all select x + 1 from n where x < 5100)
          insert into customer (name) select 'aaaa ' || x from n`).run();
      } finally {
        file.close();
      }
      const newest = '&sort[0].fieldName=customerId&sort[0].sortDirection=Descending&take=1';
      expect(await handedToReader(`/customer?name=aaaa%2017&name.operator=SW${newest}`), 'SW page').to.equal(false);
      expect(await handedToReader(`/customer?name=aaaa%2017&name.operator=SW&getTotalCount=true${newest}`), 'SW count').to.equal(false);
      expect(await handedToReader(`/customer?name=aaa&name.operator=CN${newest}`), 'CN page').to.equal(false);
      expect(await handedToReader(`/customer?name=aaa&name.operator=CN&getTotalCount=true${newest}`), 'CN count').to.equal(true);
      expect(await handedToReader('/customer?getTotalCount=true&take=1'), 'customer count').to.equal(true);
      expect(await handedToReader('/sales-order?getTotalCount=true&take=1'), 'sales-order count').to.equal(true);
      // Kept counts are answered after a read of their generation, which stays on the main connection.
      expect(await handedToReader('/customer?getTotalCount=true&take=1'), 'kept count').to.equal(false);
    });

    it('frees the readers of requests whose clients hung up: the queries are stopped, and the next read is served', async () => {
      await server.stop();
      server = await startTestServer({ routesDir: slowReadRoutesDir, logLevel: 'error', config });
      const startedBefore = (await server.call('/slow-read/started', { token: null })).body.result.started as number;
      const clients = [new AbortController(), new AbortController(), new AbortController()];
      const replies = clients.map((client) => fetch(`${server.url}/slow-read/endless`, { signal: client.signal }).catch(() => 'hung up'));
      // Two run (one reader each), the third waits for a reader.
      await until(async () => (await server.call('/slow-read/started', { token: null })).body.result.started === startedBefore + 3, 'the three reads to begin');
      await until(() => readerPids().length === 2, 'both readers to take a read');
      for (const client of clients) client.abort();
      expect(await Promise.all(replies)).to.deep.equal(['hung up', 'hung up', 'hung up']);
      // Without this, the readers ran on to Storage:QueryTimeoutSeconds (60 s here), and the waiting read after them.
      await until(() => readerPids().length === 0, 'the readers of the abandoned reads to be ended');
      const fast = await server.call('/slow-read/fast', { token: null });
      ok(fast, '/slow-read/fast');
      expect(fast.body.result.reader).to.be.a('number');
      ok(await server.call('/health/live'), '/health/live');
    });
  }
});
