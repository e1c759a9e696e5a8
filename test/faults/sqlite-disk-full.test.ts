import { join } from 'node:path';
import { expect } from 'chai';
import { skipOrFail } from '../support/hooks.js';
import { callUrl } from '../support/http.js';
import { type ServeProcess, killChildren, sqliteServeEnv, startServe } from '../support/processes.js';
import { type SmallDisk, WriteLedger, readiness, smallDisk } from '../support/sqlite-faults.js';
import { removeTempDirs } from '../support/temp.js';
import { mint, newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';
import { apart } from '../support/stores.js';

/**
 * The disk under the SQLite database fills up (a small tmpfs, filled by a file) and then has room again, with one
 * process and with `--workers 2`: writes fail with an error envelope, never a success; /health/ready answers 503
 * while no write can be committed and 200 again once one can, without a restart; the process (or pool) keeps running
 * and logs the fault; every acknowledged write is in the database afterwards.
 */
for (const workers of [1, 2]) {
  describe(apart(`SQLite: a full disk, ${workers === 1 ? 'one process' : '--workers 2'}`), function () {
    this.timeout(60_000);
    let disk: SmallDisk;
    let db: string;
    let server: ServeProcess;
    let token: string;
    const ledger = new WriteLedger(`disk-full-${workers}`);

    before(async function () {
      const mounted = smallDisk(24);
      if (typeof mounted === 'string') skipOrFail(this, 'the full-disk tests (they mount a tmpfs, as root)', mounted);
      disk = mounted;
      db = join(disk.dir, 'fault.db');
      const key = newKey();
      token = mint({ key, issuer: 'restlayer', audience: 'restlayer' });
      const env = sqliteServeEnv(db, key, {
        Log__Level: 'info', Storage__Sqlite__ReadWorkers: '1', Server__WorkerRestartMilliseconds: '50', Server__WorkerRestartMaxMilliseconds: '400',
      });
      server = await startServe(['--port', '0', '--host', '127.0.0.1', ...(workers > 1 ? ['--workers', String(workers)] : [])], { env });
      // Every worker serving before the disk fills: one still opening the database then would fail to start (and be
      // retried), which is the -shm suite's story, not this one's.
      await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= workers, 'every worker serving', 60_000);
    });
    after(async () => {
      await killChildren();
      disk?.free();
      disk?.unmount();
      removeTempDirs();
    });

    afterEach(function () {
      // What the server said, for a failure here.
      if (this.currentTest?.state === 'failed') console.log(server.stderr().split('\n').filter((l) => !l.includes('"msg":"request"')).slice(-40).join('\n'));
    });

    const ready = () => readiness(server.url);

    it('refuses writes while the disk is full, is not ready, and recovers by itself once there is room', async () => {
      for (let i = 0; i < 5; i++) expect((await ledger.post(server.url, token)).status).to.equal(201);
      expect(await ready()).to.equal(200);

      disk.fill();
      const during: number[] = [];
      await until(async () => {
        const write = await ledger.post(server.url, token);
        during.push(write.status);
        return write.status !== 201 && (await ready()) === 503;
      }, 'a write to fail and readiness to drop', 30_000, 10);
      for (let i = 0; i < 10; i++) during.push((await ledger.post(server.url, token)).status);
      const readyDuring = await ready();
      // Reads still work: the data is there, only writes need room.
      const read = await callUrl(`${server.url}/sales-order/43659`, { token });
      const live = await callUrl(`${server.url}/health/live`);

      const freedAt = Date.now();
      disk.free();
      await until(async () => (await ready()) === 200, 'readiness to come back', 20_000, 50);
      const recoveredMs = Date.now() - freedAt;
      const after: number[] = [];
      for (let i = 0; i < 5; i++) after.push((await ledger.post(server.url, token)).status);

      console.log(`      [${workers} process(es)] writes during the fault: ${JSON.stringify(count(during))}, ready during: ${readyDuring}, `
        + `read during: ${read.status}, live during: ${live.status}, ready again ${recoveredMs} ms after the disk had room, writes after: ${JSON.stringify(count(after))}`);
      expect(readyDuring).to.equal(503);
      expect(live.status).to.equal(200);
      expect(read.status).to.equal(200);
      expect(after).to.deep.equal([201, 201, 201, 201, 201]);
      // Every write that failed was answered as a storage fault (503 with Retry-After), never a 500 or a success.
      ledger.expectRefusalsAreStorageFaults();
      expect(during.filter((s) => s !== 201 && s !== 503)).to.deep.equal([]);
    });

    it('kept running and logged the fault and its end', async () => {
      expect(server.child.exitCode).to.equal(null);
      expect(server.child.signalCode).to.equal(null);
      const fault = await server.waitForStderr(/SQLite storage fault/);
      expect(fault).to.contain('"level":"error"').and.to.contain('SQLITE_FULL');
      await server.waitForStderr(/SQLite storage writable again/);
      expect(server.stderr().split('\n').filter((line) => /worker died/.test(line))).to.deep.equal([]);
    });

    it('lost no acknowledged write', async () => {
      server.child.kill('SIGTERM');
      expect(await server.exited).to.deep.equal({ code: 0, signal: null });
      const { lost } = ledger.expectInDatabase(db);
      console.log(`      [${workers} process(es)] ${ledger.acknowledged().length} writes acknowledged, ${lost} lost; answers ${JSON.stringify(ledger.statuses())}`);
    });
  });
}

function count(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}
