import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { callUrl, freePort, heldRequest } from '../support/http.js';
import { killChildren, runCli, seededSqlite, type ServeProcess, sqliteServeEnv, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { mint, newKey } from '../support/tokens.js';

const key = newKey();
// Minted when mocha loads the file, before every suite of the run: it must outlive the whole run, not ten minutes.
const token = mint({ key, issuer: 'restlayer', audience: 'restlayer', sign: { expiresIn: '6h' } });
const local = ['--host', '127.0.0.1'];

/** Configuration of a `restlayer serve` process over the SQLite file `db`. */
const serveEnv = (db: string, extra: Record<string, string | undefined> = {}) => sqliteServeEnv(db, key, extra);

/** SIGTERM, then the exit it leads to. */
async function terminate(server: ServeProcess) {
  server.child.kill('SIGTERM');
  return server.exited;
}

/** The number of sales orders, and the id of the first. */
async function orders(server: ServeProcess): Promise<{ total: number; firstId: number }> {
  const reply = await callUrl(`${server.url}/sales-order?take=1&getTotalCount=true&sort[0].fieldName=salesOrderId`, { token });
  expect(reply.status, reply.text).to.equal(200);
  expect(reply.body.result).to.have.length(1);
  return { total: reply.body.totalCount!, firstId: reply.body.result[0].salesOrderId };
}

async function totalCount(server: ServeProcess): Promise<number> {
  return (await orders(server)).total;
}

/** A GET through `agent` (keep-alive connections); `onResponse` runs when the answer's head arrives. */
function agentCall(agent: Agent, url: string, bearer?: string, onResponse?: () => void): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: bearer ? { Authorization: `Bearer ${bearer}` } : {} }, (res) => {
      onResponse?.();
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode!, text }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end();
  });
}

/** Opens a TCP connection to the port: 'connected', or the error code. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe('restlayer serve (a real process)', function () {
  this.timeout(120_000);
  let dir: string;
  /** A database of the run's seeded template, for a start that is not the first one being tested. */
  const seeded = (name: string) => seededSqlite(join(dir, name));

  beforeEach(() => {
    dir = makeTempDir('restlayer-serve-');
  });
  afterEach(killChildren);
  after(removeTempDirs);

  it('prints its URL for --port 0, fills an empty database with schema and sample data, and exits 0 on SIGTERM', async () => {
    const db = join(dir, 'fresh.db');
    expect(existsSync(db)).to.equal(false);
    const server = await startServe(['--port', '0', ...local], { cwd: dir, env: serveEnv(db) });
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).to.be.above(0);
    expect(existsSync(db)).to.equal(true);

    const live = await callUrl(`${server.url}/health/live`);
    expect(live.status).to.equal(200);
    expect(live.body.result).to.deep.equal({ status: 'Healthy' });
    const ready = await callUrl(`${server.url}/health/ready`);
    expect(ready.status).to.equal(200);

    expect(await totalCount(server)).to.be.at.least(10_000);
    const statuses = await callUrl(`${server.url}/lookup-table/sales-order-status`, { token });
    expect(statuses.status).to.equal(200);
    expect(statuses.body.result.data.map((d: { id: unknown }) => String(d.id))).to.include.members(['1', '2', '3', '4', '5', '6']);

    // The signing key came from the environment: a token signed with another key is refused.
    const stranger = await callUrl(`${server.url}/sales-order?take=1`, { token: mint({ key: newKey(), issuer: 'restlayer', audience: 'restlayer' }) });
    expect(stranger.status).to.equal(401);

    expect(await terminate(server)).to.deep.equal({ code: 0, signal: null });
  });

  it('leaves an empty database without sample data when Storage:SampleData is false', async () => {
    const server = await startServe(['--port', '0', ...local], { cwd: dir, env: serveEnv(join(dir, 'empty.db'), { Storage__SampleData: 'false' }) });
    const reply = await callUrl(`${server.url}/sales-order?take=1&getTotalCount=true`, { token });
    expect(reply.status).to.equal(200);
    expect(reply.body.totalCount).to.equal(0);
    expect(reply.body.result).to.deep.equal([]);
    expect(await terminate(server)).to.deep.equal({ code: 0, signal: null });
  });

  it('listens on the port PORT names, and --port wins over PORT', async () => {
    const fromEnv = await freePort();
    const server = await startServe(local, { cwd: dir, env: serveEnv(await seeded('port.db'), { PORT: String(fromEnv) }) });
    expect(server.port).to.equal(fromEnv);
    expect((await callUrl(`http://127.0.0.1:${fromEnv}/health/live`)).status).to.equal(200);
    expect(await terminate(server)).to.deep.equal({ code: 0, signal: null });

    const fromOption = await freePort();
    const other = await startServe(['--port', String(fromOption), ...local], { cwd: dir, env: serveEnv(join(dir, 'port.db'), { PORT: String(fromEnv) }) });
    expect(other.port).to.equal(fromOption);
    expect((await callUrl(`http://127.0.0.1:${fromOption}/health/live`)).status).to.equal(200);
    expect(await terminate(other)).to.deep.equal({ code: 0, signal: null });
  });

  it('serves below RestAPI:Path when set', async () => {
    const server = await startServe(['--port', '0', ...local], { cwd: dir, env: serveEnv(await seeded('prefix.db'), { RestAPI__Path: '/api' }) });
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect((await callUrl(`${server.url}/health/live`)).status).to.equal(200);
    expect((await callUrl(`${server.url.replace(/\/api$/, '')}/health/live`)).status).to.equal(404);
    expect(await terminate(server)).to.deep.equal({ code: 0, signal: null });
  });

  it('keeps written data across a restart and does not load the sample data twice', async () => {
    const db = await seeded('restart.db');
    const first = await startServe(['--port', '0', ...local], { cwd: dir, env: serveEnv(db) });
    const { total: before, firstId } = await orders(first);
    const id = firstId + 6;
    const read = await callUrl(`${first.url}/sales-order/${id}`, { token });
    expect(read.status).to.equal(200);
    const order = read.body.result;
    const comment = `kept across restarts ${Date.now()}`;
    const put = await callUrl(`${first.url}/sales-order/${id}`, {
      method: 'PUT',
      token,
      body: { status: order.status, onlineOrderFlag: order.onlineOrderFlag, comment, revisionNumber: order.revisionNumber },
    });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.result.revisionNumber).to.equal(order.revisionNumber + 1);
    expect(await terminate(first)).to.deep.equal({ code: 0, signal: null });

    const second = await startServe(['--port', '0', ...local], { cwd: dir, env: serveEnv(db) });
    expect(await totalCount(second)).to.equal(before);
    const again = await callUrl(`${second.url}/sales-order/${id}`, { token });
    expect(again.status).to.equal(200);
    expect(again.body.result.comment).to.equal(comment);
    expect(again.body.result.revisionNumber).to.equal(order.revisionNumber + 1);
    expect(await terminate(second)).to.deep.equal({ code: 0, signal: null });
  });

  it('on SIGTERM refuses new connections but finishes a request in flight, then exits 0 without losing it', async () => {
    const db = await seeded('graceful.db');
    const server = await startServe(['--port', '0', ...local], { cwd: dir, env: serveEnv(db) });
    const id = (await orders(server)).firstId + 2;
    const order = (await callUrl(`${server.url}/sales-order/${id}`, { token })).body.result;
    const comment = `written during shutdown ${Date.now()}`;

    const held = heldRequest(`${server.url}/sales-order/${id}`, {
      method: 'PUT',
      token,
      body: { status: order.status, onlineOrderFlag: order.onlineOrderFlag, comment, revisionNumber: order.revisionNumber },
    });
    await held.continued;
    server.child.kill('SIGTERM');
    await server.waitForStderr(/SIGTERM/);

    // The log line may come a moment before the listener is gone (a connection then lands in the closing backlog and is
    // reset): wait, bounded, for the plain refusal.
    let outcome = await tryConnect(server.port);
    for (let i = 0; i < 100 && (outcome === 'connected' || outcome === 'ECONNRESET'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      outcome = await tryConnect(server.port);
    }
    expect(outcome, 'a new connection after SIGTERM').to.equal('ECONNREFUSED');
    expect(server.child.exitCode, 'still running while a request is in flight').to.equal(null);

    const reply = await held.finish();
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.body.result.revisionNumber).to.equal(order.revisionNumber + 1);
    expect(await server.exited).to.deep.equal({ code: 0, signal: null });

    const again = await startServe(['--port', '0', ...local], { cwd: dir, env: serveEnv(db) });
    const read = await callUrl(`${again.url}/sales-order/${id}`, { token });
    expect(read.body.result.comment).to.equal(comment);
    expect(await terminate(again)).to.deep.equal({ code: 0, signal: null });
  });

  it('on SIGTERM answers 200 to every one of many concurrent slow list requests already accepted, then exits 0', async () => {
    const server = await startServe(['--port', '0', ...local], { cwd: dir, env: serveEnv(await seeded('many.db')) });
    const count = 20;
    // Open the connections first, so every one of them has surely been accepted by the server.
    const agent = new Agent({ keepAlive: true, maxSockets: count });
    try {
      const warm = await Promise.all(Array.from({ length: count }, () => agentCall(agent, `${server.url}/health/live`)));
      expect(warm.map((w) => w.status)).to.deep.equal(Array(count).fill(200));
      expect(Object.values(agent.freeSockets).flat()).to.have.length(count);

      const url = `${server.url}/sales-order?take=1000&sort[0].fieldName=customerName&getTotalCount=true`;
      let signalled = false;
      const calls = Array.from({ length: count }, () => agentCall(agent, url, token, () => {
        // SIGTERM as soon as the first answer starts: the others are in flight.
        if (!signalled) server.child.kill('SIGTERM');
        signalled = true;
      }));
      const replies = await Promise.all(calls);
      expect(replies.map((r) => r.status)).to.deep.equal(Array(count).fill(200));
      for (const reply of replies) expect(JSON.parse(reply.text).result).to.have.length(1000);
      expect(await server.exited).to.deep.equal({ code: 0, signal: null });
      expect(server.stderr()).to.include('SIGTERM');
    } finally {
      agent.destroy();
    }
  });

  it('runs --workers N worker processes behind one port, and all of them stop on SIGTERM', async () => {
    const server = await startServe(['--port', '0', '--workers', '2', ...local], { cwd: dir, env: serveEnv(await seeded('workers.db')) });
    expect(await totalCount(server)).to.be.at.least(10_000);
    const replies = await Promise.all(Array.from({ length: 8 }, () => callUrl(`${server.url}/health/live`)));
    expect(replies.map((r) => r.status)).to.deep.equal(Array(8).fill(200));
    expect(await terminate(server)).to.deep.equal({ code: 0, signal: null });
  });

  it('exits 1 with a one-line error when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      // The port from --port, then from PORT: the line names the port and what to set, as the metrics port's does.
      // A start that opens and migrates its database before it listens: past runCli's 20 s default on a loaded machine
      // (a full run once had it killed there, its exit code null).
      const timeoutMs = 90_000;
      const runs = [
        { run: await runCli(['serve', '--port', String(port), ...local], { cwd: dir, env: serveEnv(join(dir, 'taken.db')), timeoutMs }), fix: 'give --port a free port' },
        { run: await runCli(['serve', ...local], { cwd: dir, env: serveEnv(join(dir, 'taken.db'), { PORT: String(port) }), timeoutMs }), fix: 'set PORT (or Server__Port, --port) to a free port' },
      ];
      for (const { run, fix } of runs) {
        expect(run.code).to.equal(1);
        const errors = run.stderr.split('\n').filter((l) => l.startsWith('restlayer:'));
        expect(errors).to.have.length(1);
        expect(errors[0]).to.equal(`restlayer: port ${port} on 127.0.0.1 is in use (EADDRINUSE: another server on this machine?): ${fix}`);
        expect(run.stderr).to.not.match(/^\s+at\s/m);
        expect(run.stdout).to.not.include('restlayer is serving');
      }
    } finally {
      blocker.close();
    }
  });

  it('exits 1 on invalid configuration and 2 on a bad --port, before opening anything', async () => {
    const db = join(dir, 'never.db');
    const invalid = await runCli(['serve', '--port', '0', ...local], { cwd: dir, env: serveEnv(db, { RestAPI__MaxRows: '0' }) });
    expect(invalid.code).to.equal(1);
    expect(invalid.stderr.split('\n').filter((l) => l.trim().startsWith('RestAPI:MaxRows:'))).to.have.length(1);
    const badPort = await runCli(['serve', '--port', 'eighty', ...local], { cwd: dir, env: serveEnv(db) });
    expect(badPort.code).to.equal(2);
    expect(existsSync(db)).to.equal(false);
  });
});
