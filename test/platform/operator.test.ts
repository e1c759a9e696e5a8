import { expect } from 'chai';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { lines, stackLine } from '../support/cli-env.js';
import { callUrl, freePort } from '../support/http.js';
import { type ServeProcess, childEnv, killChildren, runCli, sqliteServeEnv, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { pgAdminUrl } from '../support/test-stores.js';
import { mint, newKey } from '../support/tokens.js';

/** An IPv4 address of this machine other than loopback, if it has one. */
const outsideAddress = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4')?.address;

/** Opens a TCP connection: 'connected', or the error code. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

async function terminate(server: ServeProcess) {
  server.child.kill('SIGTERM');
  return server.exited;
}

/** The JSON log lines of a process's stderr. */
const logLines = (stderr: string) => lines(stderr).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string });

describe('operator errors and defaults of restlayer serve (real processes)', function () {
  this.timeout(120_000);
  const key = newKey();
  let dir: string;
  const serveEnv = (extra: Record<string, string | undefined> = {}) => sqliteServeEnv(join(dir, 'op.db'), key, { Storage__SampleData: 'false', ...extra });

  before(() => {
    dir = makeTempDir('restlayer-operator-');
  });
  afterEach(killChildren);
  after(removeTempDirs);

  it('outside production listens on 127.0.0.1 only by default; HOST or --host says otherwise', async function () {
    const server = await startServe(['--port', '0'], { cwd: dir, env: serveEnv() });
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await tryConnect('127.0.0.1', server.port)).to.equal('connected');
    if (outsideAddress) expect(await tryConnect(outsideAddress, server.port)).to.equal('ECONNREFUSED');
    await terminate(server);
    if (!outsideAddress) this.skip();

    const viaEnv = await startServe(['--port', '0'], { cwd: dir, env: serveEnv({ HOST: '0.0.0.0' }) });
    expect(await tryConnect(outsideAddress!, viaEnv.port)).to.equal('connected');
    await terminate(viaEnv);
  });

  it('in production listens on every interface by default', async function () {
    if (!outsideAddress) this.skip();
    const server = await startServe(['--port', '0'], { cwd: dir, env: serveEnv({ NODE_ENV: 'production' }) });
    expect(await tryConnect(outsideAddress!, server.port)).to.equal('connected');
    await terminate(server);
  });

  it('shutdown logs a last "restlayer stopped" JSON line', async () => {
    const server = await startServe(['--port', '0'], { cwd: dir, env: serveEnv() });
    expect(await terminate(server)).to.deep.equal({ code: 0, signal: null });
    const last = logLines(server.stderr()).at(-1);
    expect(last).to.deep.include({ level: 'info', msg: 'restlayer stopped' });
  });

  it('production with only the signing key variable the hints name (no Issuer) starts, and accepts tokens of ValidIssuer', async () => {
    const server = await startServe(['--port', '0'], {
      cwd: dir,
      env: serveEnv({ NODE_ENV: 'production', Authentication__Schemes__Bearer__SigningKeys__0__Issuer: undefined }),
    });
    const token = mint({ key, issuer: 'restlayer', audience: 'restlayer' });
    const reply = await callUrl(`${server.url}/lookup-table/sales-order-status`, { token });
    expect(reply.status, reply.text).to.equal(200);
    await terminate(server);
  });

  it('PostgreSQL unreachable or without the database: exit 1, one line naming Storage:Postgres:Url and what to check, no password, no stack', async () => {
    const closed = new URL(pgAdminUrl);
    closed.port = String(await freePort());
    closed.password = 'pw-secret';
    const missing = new URL(pgAdminUrl);
    missing.pathname = '/restlayer_no_such_database';
    for (const url of [closed.toString(), missing.toString()]) {
      const env = childEnv({ Storage__Provider: 'postgres', Storage__Postgres__Url: url });
      for (const args of [['serve', '--port', '0'], ['user', 'list']]) {
        const run = await runCli(args, { cwd: dir, env });
        expect(run.code, `${args.join(' ')} ${url}: ${run.stderr}`).to.equal(1);
        expect(run.stderr).to.not.match(stackLine);
        expect(run.stderr).to.not.include('pw-secret');
        const failure = lines(run.stderr).filter((l) => !l.startsWith('{'));
        expect(failure, run.stderr).to.have.length(1);
        expect(failure[0]).to.match(url === missing.toString()
          // The server answered: the database alone is missing, and the hint names the command that makes it.
          ? /^restlayer: Storage:Postgres:Url: the database restlayer_no_such_database does not exist on PostgreSQL at \S+; create it \(createdb -h \S+ -p \d+( -U \S+)? restlayer_no_such_database\), then start again: the first start makes its schema$/
          : /^restlayer: Storage:Postgres:Url: cannot use PostgreSQL at \S+ \(.+\); check that the server is running and reachable, and the URL's host, port, database, user and password$/);
      }
    }
  });
});
