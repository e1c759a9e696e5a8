import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { slowReadRoutesDir } from '../support/api.js';
import { callUrl } from '../support/http.js';
import { killChildren, seededSqlite, sqliteServeEnv, startServe } from '../support/processes.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { testProvider } from '../support/test-stores.js';
import { newKey } from '../support/tokens.js';
import { addUser, FAST_HASH } from '../support/users.js';
import { until } from '../support/wait.js';
import { WHY_ONE_STORE, describeOneStore, serial } from '../support/stores.js';

const codesOf = (reply: { body: Reply['body'] }) => reply.body.messages.map((m) => m.code);

/** Processes whose command line matches `pattern` (and, when given, whose parent is `parent`). */
function pidsOf(pattern: string, parent?: number): number[] {
  try {
    return execFileSync('pgrep', [...(parent ? ['-P', String(parent)] : []), '-f', pattern], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** The reader processes of the test servers this process runs (SQLite). */
const readerPids = () => pidsOf('sqlite-reader-process', process.pid);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describeOneStore(serial(`no query stalls the server (issue 15), on ${testProvider}`), WHY_ONE_STORE.scale, function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      routesDir: slowReadRoutesDir, logLevel: 'error',
      // One reader process, so the test knows which one runs the slow query.
      config: { ...FAST_HASH, Storage: { QueryTimeoutSeconds: 2, Sqlite: { ReadWorkers: 1 } } },
    });
  });
  after(async () => {
    await server?.stop();
  });

  /** Sends the slow read and resolves once the server has begun it; `reply` resolves once it ends. */
  async function beginSlowRead(finished: string[]): Promise<{ reply: Promise<Reply> }> {
    // The count lives in the route module, which every in-process server of this mocha run shares (the hostile-counts
    // suite begins slow reads too): wait for one more than before, not for a count of this suite's own.
    const before = (await server.call('/slow-read/started', { token: null })).body.result.started as number;
    const reply = server.call('/slow-read/slow', { token: null }).then((r) => {
      finished.push('slow');
      return r;
    });
    await until(async () => (await server.call('/slow-read/started', { token: null })).body.result.started === before + 1, 'the slow read to begin', 15_000, 20);
    // Wrapped: an async function returning the promise itself would wait for it.
    return { reply };
  }

  it('cheap requests answer while a slow read runs; the slow read answers 503 Request_Timeout at Storage:QueryTimeoutSeconds', async () => {
    const finished: string[] = [];
    const slow = await beginSlowRead(finished);
    for (const path of ['/health/live', '/lookup-table/operators']) {
      const reply = await server.call(path);
      expect(reply.status, path).to.equal(200);
      finished.push(path);
    }
    const reply = await slow.reply;
    expect(finished).to.deep.equal(['/health/live', '/lookup-table/operators', 'slow']);
    expect(reply.status).to.equal(503);
    expect(codesOf(reply)).to.deep.equal(['Request_Timeout']);
    expect(reply.body.messages[0].message).to.match(/stopped.*Narrow the criteria/);
    // A 503 says when to come back, as every other 503 does (contract part 3).
    expect(reply.headers.get('Retry-After')).to.equal('1');
    expect(reply.text).not.to.match(/\bat .*\.js:\d+/);
  });

  it('reads through the reader see what was committed through db', async () => {
    const before = (await server.call('/slow-read/fast', { token: null })).body.result.reader as number;
    await addUser(server, 'reader-check', 'reader-check-password-1');
    const reply = await server.call('/slow-read/fast', { token: null });
    expect(reply.status).to.equal(200);
    expect(reply.body.result).to.deep.equal({ reader: before + 1, db: before + 1 });
  });

  if (testProvider === 'sqlite') {
    it('the stopped query really stops: its reader process ends, a fresh one serves the next reads, and the next slow read is stopped too', async () => {
      for (let round = 0; round < 2; round++) {
        const slow = await beginSlowRead([]);
        await until(() => readerPids().length === 1, 'the reader process to run the slow read');
        const [pid] = readerPids();
        const reply = await slow.reply;
        expect([reply.status, ...codesOf(reply)]).to.deep.equal([503, 'Request_Timeout']);
        await until(() => !alive(pid), `reader process ${pid} to end`);
        const fast = await server.call('/slow-read/fast', { token: null });
        expect(fast.status).to.equal(200);
        expect(readerPids()).to.have.length(1).and.not.include(pid);
      }
    });
  } else {
    it('the stopped query really stops: PostgreSQL cancels it (statement_timeout), no backend runs it any more', async () => {
      const admin = new pg.Client({ connectionString: server.config.Storage.Postgres.Url });
      await admin.connect();
      try {
        const running = async () => (await admin.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and query like '%pg_sleep(30)%' and pid <> pg_backend_pid()",
        )).rows[0].n;
        const slow = await beginSlowRead([]);
        await until(async () => (await running()) === 1, 'PostgreSQL to run the slow read');
        const reply = await slow.reply;
        expect([reply.status, ...codesOf(reply)]).to.deep.equal([503, 'Request_Timeout']);
        expect(await running()).to.equal(0);
      } finally {
        await admin.end();
      }
    });
  }
});

if (testProvider === 'sqlite') {
  describe('no query stalls the server under serve --workers 2', function () {
    this.timeout(60_000);
    const cli = fileURLToPath(new URL('../support/slow-read-cli.js', import.meta.url));
    let db: string;
    let url: string;

    before(async () => {
      db = await seededSqlite(join(makeTempDir(), 'stall.db'));
      const env = sqliteServeEnv(db, newKey(), { Storage__QueryTimeoutSeconds: '3', Storage__Sqlite__ReadWorkers: '1' });
      const server = await startServe(['--workers', '2', '--host', '127.0.0.1', '--port', '0'], { cli, env });
      await server.waitForStderr(/restlayer listening on[\s\S]*restlayer listening on/);
      url = server.url;
    });
    after(async () => {
      await killChildren();
      removeTempDirs();
    });

    it('cheap requests answer on both workers while a slow read runs; it answers 503 and its reader process ends', async () => {
      const finished: string[] = [];
      const slow = callUrl(`${url}/slow-read/slow`).then((r) => {
        finished.push('slow');
        return r;
      });
      // Its reader names the database file on its command line.
      await until(() => pidsOf(db).length === 1, 'a reader process to run the slow read', 15_000, 20);
      const [pid] = pidsOf(db);
      const cheap = await Promise.all(Array.from({ length: 8 }, async (_, i) => {
        const reply = await callUrl(`${url}/${i % 2 ? 'health/live' : 'health/ready'}`);
        finished.push('cheap');
        return reply.status;
      }));
      expect(cheap).to.deep.equal(Array(8).fill(200));
      const reply = await slow;
      expect(finished).to.deep.equal([...Array(8).fill('cheap'), 'slow']);
      expect([reply.status, ...codesOf(reply)]).to.deep.equal([503, 'Request_Timeout']);
      await until(() => !alive(pid), `reader process ${pid} to end`);
    });

    it('a server killed (SIGKILL) in the middle of a slow read leaves no reader process running it', async () => {
      const dbKilled = await seededSqlite(join(makeTempDir(), 'killed.db'));
      const env = sqliteServeEnv(dbKilled, newKey(), { Storage__QueryTimeoutSeconds: '60', Storage__Sqlite__ReadWorkers: '1' });
      const doomed = await startServe(['--host', '127.0.0.1', '--port', '0'], { cli, env });
      void callUrl(`${doomed.url}/slow-read/endless`).catch(() => undefined);
      await until(() => pidsOf(dbKilled).length === 1, 'a reader process to run the slow read', 15_000, 20);
      const [pid] = pidsOf(dbKilled);
      // In the query, not still starting: more CPU than a reader's start takes (utime + stime, in clock ticks of 10 ms).
      const cpuSeconds = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ').slice(11, 13).reduce((a, b) => a + Number(b), 0) / 100;
      await until(() => cpuSeconds() > 1, 'the reader to be running the slow query', 30_000, 50);
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      // Its query would run on for hours; the reader must notice its server is gone.
      await until(() => !alive(pid), `orphaned reader process ${pid} to end`, 10_000);
    });
  });
}
