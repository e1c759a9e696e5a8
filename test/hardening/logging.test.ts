import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { probeRoutesDir } from '../support/api.js';
import { type UrlReply, callUrl } from '../support/http.js';
import { type ServeProcess, childEnv, killChildren, runCli, startServe } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { mint, newKey } from '../support/tokens.js';
import { FAST_HASH, addUser } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * Logging: one structured JSON line per request (method, path, status, durationMs, requestId, user); secrets never
 * reach the log, in process or on a real process's stderr; Log:Level is respected.
 */

const PASSWORD = 'Recognisable-Pa55word-7f3c91';

type Line = Record<string, unknown>;
const requestLines = (logs: Line[]) => logs.filter((l) => l.msg === 'request');

/** The secrets a session of calls handled: what must appear nowhere in the log. */
interface Secrets {
  values: Set<string>;
  add(...values: (string | undefined)[]): void;
}
function secrets(): Secrets {
  const values = new Set<string>();
  return { values, add: (...v) => v.forEach((s) => s && s.length >= 8 && values.add(s)) };
}

/** Cookie values (not names) of a response's Set-Cookie headers. */
const cookieValues = (headers: Headers) => headers.getSetCookie().map((c) => c.split(';')[0].split('=').slice(1).join('='));
const cookiePairs = (headers: Headers) => headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');

/**
 * Logs in every way variant A offers with PASSWORD, uses the tokens and cookie, refreshes, fails once, logs out;
 * answers everything secret it saw (password, access and refresh tokens, cookie values, the bad token sent).
 */
async function sessionOfCalls(base: string, user: string): Promise<Secrets> {
  const seen = secrets();
  seen.add(PASSWORD, `${PASSWORD}-wrong`);
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => callUrl(base + path, { method: 'POST', body, headers });

  const jwtLogin = await post('/auth/jwt', { userName: user, password: PASSWORD });
  expect(jwtLogin.status, jwtLogin.text).to.equal(200);
  const pair = jwtLogin.body.result as { accessToken: string; refreshToken: string };
  seen.add(pair.accessToken, pair.refreshToken);
  expect((await callUrl(`${base}/sales-order/43659`, { token: pair.accessToken })).status).to.equal(200);

  const refreshed = await post('/auth/refresh', pair);
  expect(refreshed.status, refreshed.text).to.equal(200);
  seen.add(refreshed.body.result.accessToken, refreshed.body.result.refreshToken);
  // A spent refresh token presented again, and a token that does not verify.
  await post('/auth/refresh', { accessToken: pair.accessToken, refreshToken: `${pair.refreshToken}x` });
  seen.add(`${pair.refreshToken}x`);
  const tampered = `${refreshed.body.result.accessToken.slice(0, -4)}AAAA`;
  seen.add(tampered);
  expect((await callUrl(`${base}/sales-order/43659`, { token: tampered })).status).to.equal(401);

  const cookieLogin = await post('/auth/cookie', { userName: user, password: PASSWORD });
  expect(cookieLogin.status, cookieLogin.text).to.equal(200);
  seen.add(...cookieValues(cookieLogin.headers));
  const cookie = cookiePairs(cookieLogin.headers);
  const origin = new URL(base).origin;
  expect((await callUrl(`${base}/sales-order/43660`, { headers: { Cookie: cookie } })).status).to.equal(200);
  const put = await callUrl(`${base}/sales-order/43660`, { method: 'PUT', body: { status: 2, onlineOrderFlag: true }, headers: { Cookie: cookie, Origin: origin } });
  expect(put.status, put.text).to.equal(200);

  // A wrong password, the password in a query string and in a header, and logouts.
  expect((await post('/auth/jwt', { userName: user, password: `${PASSWORD}-wrong` })).status).to.equal(401);
  expect((await callUrl(`${base}/sales-order?password=${PASSWORD}&token=${pair.accessToken}`, { token: refreshed.body.result.accessToken })).status).to.equal(400);
  await callUrl(`${base}/health/live`, { headers: { 'X-Api-Key': PASSWORD, Authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}` } });
  seen.add(Buffer.from(`${user}:${PASSWORD}`).toString('base64'));
  expect((await post('/auth/logout', {}, { Cookie: cookie, Origin: origin })).status).to.equal(200);
  expect((await callUrl(`${base}/auth/logout`, { method: 'POST', body: {}, token: refreshed.body.result.accessToken })).status).to.equal(200);
  return seen;
}

function expectNoSecrets(log: string, seen: Secrets) {
  expect(seen.values.size).to.be.at.least(8);
  for (const secret of seen.values) {
    expect(log.includes(secret), `a secret is in the log: ${secret.slice(0, 12)}…`).to.equal(false);
    // Not even a recognisable part of one (e.g. a token's signature, a password without its suffix).
    const tail = secret.slice(-16);
    expect(log.includes(tail), `the end of a secret is in the log: …${tail}`).to.equal(false);
  }
}

describeOneStore('hardening: logging', WHY_ONE_STORE.http, function () {
  this.timeout(60_000);

  describe('one structured line per request', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ config: { ...FAST_HASH }, logLevel: 'info' });
      await addUser(server, 'logan', PASSWORD);
    });
    after(() => server?.stop());

    it('writes exactly one JSON line per request with method, path (no query), status, durationMs, requestId and user', async () => {
      server.logs.length = 0;
      const calls: [string, string, string | null, unknown, number][] = [
        ['GET', '/sales-order/43659', 'token', undefined, 200],
        ['GET', '/sales-order?status=5&take=2', 'token', undefined, 200],
        ['GET', '/sales-order/43659', null, undefined, 401],
        ['GET', '/no/such/path', 'token', undefined, 404],
        ['POST', '/sales-order/43659', 'token', {}, 405],
        ['PUT', '/sales-order/43659', 'token', { status: 'x' }, 400],
        ['POST', '/sales-order', 'token', { customerId: 11000, status: 1, onlineOrderFlag: true }, 201],
        ['POST', '/auth/jwt', null, { userName: 'logan', password: PASSWORD }, 200],
      ];
      for (const [method, path, token, body, status] of calls) {
        const reply = await server.call(path, { method, token: token === null ? null : undefined, body });
        expect(reply.status, `${method} ${path}`).to.equal(status);
        const id = reply.headers.get('X-Request-Id')!;
        const lines = requestLines(server.logs).filter((l) => l.requestId === id);
        expect(lines, `${method} ${path}: lines for ${id}`).to.have.length(1);
        const [line] = lines;
        expect(Object.keys(line).sort(), `${method} ${path}`).to.include.members(['durationMs', 'level', 'method', 'msg', 'path', 'requestId', 'status', 'time']);
        expect(line).to.include({ method, path: path.split('?')[0], status, requestId: id, level: 'info' });
        expect(line.durationMs).to.be.a('number').that.is.at.least(0);
        expect(new Date(line.time as string).toISOString()).to.equal(line.time);
        if (token === 'token' && status !== 404 && status !== 405) expect(line.user, `${method} ${path}`).to.equal('tester');
        else expect(line, `${method} ${path}`).to.not.have.property('user');
      }
      expect(requestLines(server.logs)).to.have.length(calls.length);
    });

    it('logs the caller of a cookie session as the user', async () => {
      const login = await server.call('/auth/cookie', { method: 'POST', token: null, body: { userName: 'logan', password: PASSWORD } });
      const reply = await server.call('/sales-order/43659', { token: null, headers: { Cookie: cookiePairs(login.headers) } });
      const line = requestLines(server.logs).find((l) => l.requestId === reply.headers.get('X-Request-Id'));
      expect(line).to.include({ user: 'logan', status: 200 });
    });

    it('never logs the password, tokens or cookie values it handled', async () => {
      server.logs.length = 0;
      const seen = await sessionOfCalls(server.url, 'logan');
      expect(requestLines(server.logs).length).to.be.at.least(12);
      expectNoSecrets(JSON.stringify(server.logs), seen);
    });
  });

  describe('a 500', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ routesDir: probeRoutesDir, sampleData: false, logLevel: 'info' });
    });
    after(() => server?.stop());

    it('gets a warn request line and an error line with the stack, both carrying the answer\'s X-Request-Id', async () => {
      const reply = await server.call('/probe/throw', { token: null, headers: { 'X-Request-Id': 'trace-500-abc' } });
      expect(reply.status).to.equal(500);
      expect(reply.text).to.not.match(/\n\s+at /);
      const lines = server.logs.filter((l) => l.requestId === 'trace-500-abc');
      expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([['error', 'unhandled exception'], ['warn', 'request']]);
      expect(lines[0].error).to.match(/kaboom: internal detail\n\s+at /);
      expect(lines[1]).to.include({ status: 500, method: 'GET', path: '/probe/throw' });
    });
  });

  describe('a real process (stderr)', () => {
    const key = newKey();
    let dir: string;
    before(() => {
      dir = makeTempDir('restlayer-logging-');
    });
    afterEach(killChildren);
    after(removeTempDirs);

    const env = (db: string, level: string) => childEnv({
      Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
      Authentication__Schemes__Bearer__SigningKeys__0__Value: key,
      Authentication__Cookie__Keys: newKey(),
      Authentication__PasswordHashCost: '10',
      Storage__Sqlite__Path: db,
      Log__Level: level,
    });

    async function serveWithUser(level: string): Promise<ServeProcess> {
      const db = join(dir, `${level}.db`);
      const added = await runCli(['user', 'add', 'logan', '--role', 'Clerk', '--password-stdin'], { cwd: dir, env: env(db, level), input: `${PASSWORD}\n` });
      expect(added.code, added.stderr).to.equal(0);
      return startServe(['--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: env(db, level) });
    }

    /** stderr as parsed lines; every line must be JSON. */
    const stderrLines = (server: ServeProcess): Line[] => server.stderr().split('\n').filter(Boolean).map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        return expect.fail(`a stderr line that is not JSON: ${l}`);
      }
    });

    it('at Log:Level info: a JSON line per request on stderr, and no secret in any of it', async () => {
      const server = await serveWithUser('info');
      const seen = await sessionOfCalls(server.url, 'logan');
      await callUrl(`${server.url}/health/live`, { headers: { 'X-Request-Id': 'last-one' } });
      await server.waitForStderr(/"requestId":"last-one"/);
      const lines = stderrLines(server);
      expect(requestLines(lines).length).to.be.at.least(13);
      for (const line of requestLines(lines)) expect(line).to.have.keys('time', 'level', 'msg', 'method', 'path', 'status', 'durationMs', 'requestId', ...('user' in line ? ['user'] : []));
      expectNoSecrets(server.stderr(), seen);
    });

    it('at Log:Level warn: no request lines for answers below 500, a warn line for a 503', async () => {
      const server = await serveWithUser('warn');
      const seen = await sessionOfCalls(server.url, 'logan');
      // A 503: the database write-locked by another process for longer than a write waits.
      const holder = new Database(join(dir, 'warn.db'));
      let unavailable: UrlReply | undefined;
      try {
        holder.exec('BEGIN EXCLUSIVE');
        unavailable = await callUrl(`${server.url}/sales-order`, { method: 'POST', token: mint({ key, issuer: 'restlayer', audience: 'restlayer' }),
          body: { customerId: 11000, status: 1, onlineOrderFlag: true }, headers: { 'X-Request-Id': 'warn-503' } });
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      expect(unavailable?.status).to.equal(503);
      await server.waitForStderr(/"requestId":"warn-503"/);
      server.child.kill('SIGTERM');
      await server.exited;
      const lines = stderrLines(server);
      expect(requestLines(lines).map((l) => [l.level, l.status, l.requestId]), 'request lines at warn').to.deep.equal([['warn', 503, 'warn-503']]);
      expect(lines.filter((l) => l.level === 'info' || l.level === 'debug'), 'info lines at warn').to.deep.equal([]);
      expectNoSecrets(server.stderr(), seen);
    });
  });
});
