import { join } from 'node:path';
import { expect } from 'chai';
import { skipOrFail } from '../support/hooks.js';
import { freePort } from '../support/http.js';
import { type ServeProcess, killChildren, sqliteServeEnv, startServe } from '../support/processes.js';
import { WriteLedger, immutable, immutableProblem, readiness } from '../support/sqlite-faults.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { mint, newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';
import { apart } from '../support/stores.js';

/**
 * The database's -shm file becomes unwritable for a while (chattr +i: root ignores file modes). SQLite maps that file
 * into every process that has the database open, and a write to a mapping whose file may no longer be written is a
 * SIGBUS: the process dies at once, with no chance to log (see docs/operations.md). The answer is a supervisor:
 * `--workers N` replaces its workers with a back-off and never gives up; a single process needs systemd's Restart=.
 */
describe(apart('SQLite: the -shm file unwritable for a while'), function () {
  this.timeout(180_000);
  let dir: string;
  let key: string;
  let token: string;

  before(function () {
    dir = makeTempDir('restlayer-fault-shm-');
    const problem = immutableProblem(dir);
    if (problem) skipOrFail(this, 'the unwritable -shm tests (chattr +i, as root)', problem);
    key = newKey();
    token = mint({ key, issuer: 'restlayer', audience: 'restlayer' });
  });
  after(async () => {
    for (const name of ['one.db-shm', 'pool.db-shm']) immutable(join(dir, name), false);
    await killChildren();
    removeTempDirs();
  });

  // A fixed port: when its last worker is gone the primary closes the listening socket, and with --port 0 the next
  // worker would listen on a new random one.
  const serve = async (db: string, args: string[] = []) => startServe(['--port', String(await freePort()), '--host', '127.0.0.1', ...args], {
    env: sqliteServeEnv(db, key, {
      Log__Level: 'info', Storage__Sqlite__ReadWorkers: '1', Server__WorkerRestartMilliseconds: '50', Server__WorkerRestartMaxMilliseconds: '400',
    }),
  });

  describe('--workers 2', () => {
    let server: ServeProcess;
    let db: string;
    const ledger = new WriteLedger('shm-pool');

    before(async () => {
      db = join(dir, 'pool.db');
      server = await serve(db, ['--workers', '2']);
      await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'both workers serving', 60_000);
    });

    afterEach(function () {
      // What the primary and its workers said, for a failure here (the workers' deaths are the story).
      if (this.currentTest?.state === 'failed') console.log(server.stderr().split('\n').filter((l) => !l.includes('"msg":"request"')).slice(-40).join('\n'));
    });

    const deaths = () => (server.stderr().match(/worker died; starting a new one/g) ?? []).length;
    const ready = () => readiness(server.url);

    it('workers die of SIGBUS, the primary keeps replacing them with a back-off, and the pool serves again once the file is writable', async () => {
      for (let i = 0; i < 5; i++) expect((await ledger.post(server.url, token)).status).to.equal(201);
      expect(immutable(`${db}-shm`, true)).to.equal(undefined);
      const during: number[] = [];
      const readyDuring: number[] = [];
      // Requests during the fault: a worker that touches the database dies under them (no answer: status 0).
      await until(async () => {
        during.push((await ledger.post(server.url, token)).status);
        readyDuring.push(await ready());
        // Refused at once while no worker lives: no need to knock thousands of times.
        await new Promise((resolve) => setTimeout(resolve, 50));
        return deaths() >= 3;
      }, 'workers to die, and a replacement to fail to start', 60_000, 20);
      // The replacements that could not open the database said why, and the primary went on (the old rule stopped here).
      await server.waitForStderr(/cannot write the SQLite database.*worker cannot start/);
      expect(server.child.exitCode, 'the primary still runs').to.equal(null);

      const fixedAt = Date.now();
      expect(immutable(`${db}-shm`, false)).to.equal(undefined);
      await until(async () => (await ready()) === 200, 'readiness to come back', 60_000, 20);
      const recoveredMs = Date.now() - fixedAt;
      const after: number[] = [];
      for (let i = 0; i < 5; i++) after.push((await ledger.post(server.url, token)).status);
      console.log(`      [--workers 2] writes during: ${JSON.stringify(count(during))}, ready during: ${JSON.stringify(count(readyDuring))}, `
        + `worker deaths: ${deaths()}, serving again ${recoveredMs} ms after the file was writable, writes after: ${JSON.stringify(count(after))}`);
      expect(after).to.deep.equal([201, 201, 201, 201, 201]);
      expect(during.filter((s) => s >= 200 && s < 300 && s !== 201)).to.deep.equal([]);
      ledger.expectRefusalsAreEnvelopes();
    });

    it('the primary logged each death with its signal and what to check', async () => {
      const line = await server.waitForStderr(/worker died; starting a new one/);
      expect(line).to.contain('"level":"error"').and.to.match(/"signal":"SIGBUS"|"code":1/);
      expect(server.stderr()).to.match(/"signal":"SIGBUS".*-shm/);
      expect(server.stderr()).not.to.match(/stopping/);
    });

    it('lost no acknowledged write', async () => {
      server.child.kill('SIGTERM');
      expect(await server.exited).to.deep.equal({ code: 0, signal: null });
      const { lost } = ledger.expectInDatabase(db);
      console.log(`      [--workers 2] ${ledger.acknowledged().length} writes acknowledged, ${lost} lost; answers ${JSON.stringify(ledger.statuses())}`);
    });
  });

  describe('one process', () => {
    let db: string;
    const ledger = new WriteLedger('shm-one');

    it('dies of SIGBUS (unavoidable: see docs/operations.md), and a restart, as systemd would, serves every acknowledged write', async () => {
      db = join(dir, 'one.db');
      const server = await serve(db);
      for (let i = 0; i < 5; i++) expect((await ledger.post(server.url, token)).status).to.equal(201);
      expect(immutable(`${db}-shm`, true)).to.equal(undefined);
      await ledger.post(server.url, token);
      const exit = await server.exited;
      expect(exit).to.deep.equal({ code: null, signal: 'SIGBUS' });
      expect(immutable(`${db}-shm`, false)).to.equal(undefined);

      const again = await serve(db);
      for (let i = 0; i < 3; i++) expect((await ledger.post(again.url, token)).status).to.equal(201);
      again.child.kill('SIGTERM');
      expect(await again.exited).to.deep.equal({ code: 0, signal: null });
      const { lost } = ledger.expectInDatabase(db);
      console.log(`      [one process] exit ${JSON.stringify(exit)}; ${ledger.acknowledged().length} writes acknowledged, ${lost} lost; answers ${JSON.stringify(ledger.statuses())}`);
    });
  });
});

function count(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}
