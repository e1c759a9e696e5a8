import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { type UrlReply, callUrl } from '../support/http.js';
import { killChildren, runCli, seededSqlite, type ServeProcess, sqliteServeEnv, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { mint, newKey } from '../support/tokens.js';
import { expectEnvelope } from './hostile.js';
import { apart } from '../support/stores.js';

/**
 * Faults with real `restlayer serve` processes on SQLite: killed mid-burst of writes, the database locked by
 * another process, several workers writing to one file at once.
 */

const key = newKey();
// Minted when mocha loads the file, before every suite of the run: it must outlive the whole run, not ten minutes.
const token = mint({ key, issuer: 'restlayer', audience: 'restlayer', sign: { expiresIn: '6h' } });
const local = ['--port', '0', '--host', '127.0.0.1'];

const serveEnv = (db: string, extra: Record<string, string> = {}) =>
  sqliteServeEnv(db, key, { Authentication__PasswordHashCost: '10', Log__Level: 'warn', ...extra });

/** A call that reports a connection cut by the crash as `undefined` instead of failing. */
async function attempt(url: string, init: Parameters<typeof callUrl>[1]): Promise<UrlReply | undefined> {
  try {
    return await callUrl(url, init);
  } catch {
    return undefined;
  }
}

interface OrderRow {
  sales_order_id: number;
  sales_order_number: string;
  status: number;
  customer_id: number;
  online_order_flag: number;
  purchase_order_number: string | null;
  comment: string | null;
  revision_number: number;
}

const unhandled = (server: ServeProcess) => server.stderr().split('\n').filter((l) => /unhandled exception/.test(l));

describe(apart('hardening: crashes and faults (real processes, SQLite)'), function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir('restlayer-crash-');
  });
  afterEach(killChildren);
  after(removeTempDirs);

  it('SIGKILL in the middle of 300 concurrent writes: every acknowledged write survives, whole, and the file is sound', async () => {
    const db = await seededSqlite(join(dir, 'crash.db'));
    const server = await startServe(local, { cwd: dir, env: serveEnv(db) });
    const run = randomBytes(4).toString('hex');
    const before = (await callUrl(`${server.url}/sales-order?take=1&getTotalCount=true`, { token })).body.totalCount!;
    const firstId = 43659;

    type Write = { kind: 'post' | 'put'; i: number; comment: string; id?: number; reply?: UrlReply };
    const writes: Write[] = Array.from({ length: 300 }, (_, i) => ({ kind: i % 2 ? 'put' : 'post', i, comment: `${i % 2 ? 'put' : 'post'}-${run}-${i}` }));
    let acknowledged = 0;
    let kill!: () => void;
    const killNow = new Promise<void>((resolve) => (kill = resolve));
    const inFlight = writes.map(async (w) => {
      w.reply = w.kind === 'post'
        ? await attempt(`${server.url}/sales-order`, { method: 'POST', token, body: { customerId: 11000 + (w.i % 40), status: 1, onlineOrderFlag: w.i % 4 === 0, comment: w.comment, purchaseOrderNumber: `PO-${run}-${w.i}` } })
        : await attempt(`${server.url}/sales-order/${firstId + w.i}`, { method: 'PUT', token, body: { status: 2, onlineOrderFlag: true, comment: w.comment } });
      if (w.reply && w.reply.status < 300 && ++acknowledged === 100) kill();
    });
    await Promise.race([killNow, Promise.all(inFlight)]);
    server.child.kill('SIGKILL');
    expect(await server.exited).to.deep.include({ signal: 'SIGKILL' });
    await Promise.all(inFlight);

    const acked = writes.filter((w) => w.reply && w.reply.status >= 200 && w.reply.status < 300);
    const refused = writes.filter((w) => w.reply && w.reply.status >= 300);
    expect(refused.map((w) => w.reply!.text), 'writes refused before the kill').to.deep.equal([]);
    expect(acked.length, 'acknowledged writes').to.be.at.least(100);
    // The kill came while writes were still in flight, or this proves nothing.
    expect(acked.length, 'every write was answered before the kill').to.be.below(writes.length);
    for (const w of acked.filter((x) => x.kind === 'post')) w.id = w.reply!.body.result.salesOrderId as number;

    // The file as the crash left it, opened by another program: sound, and holding every acknowledged write.
    const file = new Database(db);
    try {
      expect(file.pragma('integrity_check')).to.deep.equal([{ integrity_check: 'ok' }]);
      expect(file.pragma('foreign_key_check')).to.deep.equal([]);
      const byId = file.prepare('select * from sales_order where sales_order_id = ?');
      for (const w of acked) {
        const row = byId.get(w.id ?? firstId + w.i) as OrderRow | undefined;
        expect(row, `${w.kind} ${w.i}`).to.not.equal(undefined);
        expect(row!.comment, `${w.kind} ${w.i}`).to.equal(w.comment);
        if (w.kind === 'post') {
          expect(row).to.deep.include({ sales_order_number: `SO${w.id}`, status: 1, customer_id: 11000 + (w.i % 40), online_order_flag: w.i % 4 === 0 ? 1 : 0, purchase_order_number: `PO-${run}-${w.i}`, revision_number: 1 });
        } else {
          expect(row).to.deep.include({ status: 2, online_order_flag: 1, revision_number: 2 });
        }
      }
      // A write cut off by the kill is there whole or not at all: no order kept its placeholder number.
      expect(file.prepare("select count(*) as n from sales_order where sales_order_number like 'new-%'").get()).to.deep.equal({ n: 0 });
      const posted = file.prepare(`select count(*) as n from sales_order where comment like 'post-${run}-%'`).get() as { n: number };
      const put = file.prepare(`select count(*) as n from sales_order where comment like 'put-${run}-%'`).get() as { n: number };
      const ackedPosts = acked.filter((w) => w.kind === 'post').length;
      expect(posted.n).to.be.at.least(ackedPosts);
      console.log(`      (killed with ${acked.length} of ${writes.length} writes acknowledged, ${writes.filter((w) => !w.reply).length} cut off; ` +
        `in the file: ${posted.n} creates (${ackedPosts} acknowledged), ${put.n} updates (${acked.length - ackedPosts} acknowledged))`);
    } finally {
      file.close();
    }

    // A restart on the same file serves every acknowledged write, and takes new ones.
    const again = await startServe(local, { cwd: dir, env: serveEnv(db) });
    for (const w of acked) {
      const read = await callUrl(`${again.url}/sales-order/${w.id ?? firstId + w.i}`, { token });
      expect(read.status, read.text).to.equal(200);
      expect(read.body.result.comment).to.equal(w.comment);
    }
    const total = (await callUrl(`${again.url}/sales-order?take=1&getTotalCount=true`, { token })).body.totalCount!;
    expect(total).to.be.at.least(before + acked.filter((w) => w.kind === 'post').length);
    const created = await callUrl(`${again.url}/sales-order`, { method: 'POST', token, body: { customerId: 11000, status: 1, onlineOrderFlag: true } });
    expect(created.status, created.text).to.equal(201);
    expect(unhandled(again)).to.deep.equal([]);
  });

  it('a write lock held by another process: writes answer 503 Storage_Unavailable, reads and health go on meanwhile, and it recovers', async () => {
    const db = await seededSqlite(join(dir, 'locked.db'));
    const server = await startServe(local, { cwd: dir, env: serveEnv(db) });
    const user = await runCli(['user', 'add', 'lena', '--role', 'Clerk', '--password-stdin'], { cwd: dir, env: serveEnv(db), input: 'lena-password-1\n' });
    expect(user.code, user.stderr).to.equal(0);
    const count = async () => (await callUrl(`${server.url}/sales-order?take=0&getTotalCount=true`, { token })).body.totalCount!;
    const before = await count();

    const holder = new Database(db);
    try {
      holder.exec('BEGIN EXCLUSIVE');
      let writesAnswered = false;
      const write = callUrl(`${server.url}/sales-order`, { method: 'POST', token, body: { customerId: 11000, status: 1, onlineOrderFlag: true, comment: 'while locked' } });
      const login = callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: 'lena', password: 'lena-password-1' } });
      const writes = Promise.all([write, login]).finally(() => (writesAnswered = true));

      // While the writes wait for the lock, the process keeps serving everything that does not need it.
      for (const path of ['/health/live', '/health/ready', '/sales-order/43659', '/sales-order?take=5&status=5', '/lookup-table/sales-order-status']) {
        const reply = await callUrl(`${server.url}${path}`, { token });
        expect(reply.status, `${path}: ${reply.text}`).to.equal(200);
        expect(writesAnswered, `${path} was only answered after the writes gave up: the process stood still`).to.equal(false);
      }

      const [written, loggedIn] = await writes;
      for (const reply of [written, loggedIn]) {
        expect(reply.status, reply.text).to.equal(503);
        expectEnvelope(reply.text, 503, reply.text);
        expect(reply.body.messages.map((m) => m.code)).to.deep.equal(['Storage_Unavailable']);
        expect(reply.headers.get('x-request-id')).to.be.a('string');
      }
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }

    // The lock is gone: the same requests succeed, and the refused write left nothing behind.
    expect(await count()).to.equal(before);
    const written = await callUrl(`${server.url}/sales-order`, { method: 'POST', token, body: { customerId: 11000, status: 1, onlineOrderFlag: true, comment: 'after the lock' } });
    expect(written.status, written.text).to.equal(201);
    const loggedIn = await callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: 'lena', password: 'lena-password-1' } });
    expect(loggedIn.status, loggedIn.text).to.equal(200);
    expect(await count()).to.equal(before + 1);
    expect(unhandled(server)).to.deep.equal([]);
  });

  it('several workers on one file: concurrent refreshes of one token all succeed and concurrent writes never fail', async () => {
    const db = await seededSqlite(join(dir, 'workers.db'));
    const env = serveEnv(db, { Authentication__Throttle__AddressFailures: '1000' });
    const user = await runCli(['user', 'add', 'wim', '--role', 'Clerk', '--password-stdin'], { cwd: dir, env, input: 'wim-password-12\n' });
    expect(user.code, user.stderr).to.equal(0);
    const server = await startServe([...local, '--workers', '4'], { cwd: dir, env });
    // A new connection per call, so the calls spread over the workers.
    const post = (path: string, body: object, bearer?: string) => callUrl(`${server.url}${path}`, { method: 'POST', body, token: bearer, headers: { Connection: 'close' } });

    const statuses: Record<number, number> = {};
    for (let round = 0; round < 6; round++) {
      const login = await post('/auth/jwt', { userName: 'wim', password: 'wim-password-12' });
      expect(login.status, login.text).to.equal(200);
      // Within Authentication:RefreshReuseGraceSeconds, every concurrent refresh of one pair succeeds (contract part 4).
      const refreshes = await Promise.all(Array.from({ length: 16 }, () => post('/auth/refresh', login.body.result)));
      for (const r of refreshes) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
    const creates = await Promise.all(Array.from({ length: 60 }, (_, i) => post('/sales-order', { customerId: 11000 + i, status: 1, onlineOrderFlag: true, comment: `worker write ${i}` }, token)));
    for (const r of creates) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    expect(statuses).to.deep.equal({ 200: 96, 201: 60 });
    expect(unhandled(server)).to.deep.equal([]);
  });
});
