import { expect } from 'chai';
import { join } from 'node:path';
import { type UrlReply, callUrl } from '../support/http.js';
import { killChildren, runCli, seededSqlite, type ServeProcess, sqliteServeEnv, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';

interface Pair {
  accessToken: string;
  refreshToken: string;
}

const PARALLEL = 10;

/**
 * `serve --workers 2` over one SQLite file: every worker has its own connection and its own caches, so refresh
 * rotation and the end of a user's credentials must hold across them (contract part 4).
 */
describe('serve --workers 2: refresh rotation and ending access across workers', function () {
  this.timeout(120_000);
  let env: NodeJS.ProcessEnv;
  let server: ServeProcess;
  const cli = (args: string[], input?: string) => runCli(args, { env, input });

  before(async () => {
    const dir = makeTempDir();
    env = sqliteServeEnv(await seededSqlite(join(dir, 'workers.db')), newKey(), {
      Authentication__PasswordHashCost: '10',
      Authentication__RefreshReuseGraceSeconds: '1',
      Authentication__Throttle__AccountFailures: '50',
    });
    for (const user of ['kim', 'lou', 'mo', 'ned']) {
      const add = await cli(['user', 'add', user, '--role', 'Clerk', '--password', `${user}-password-1`]);
      expect(add.code, add.stderr).to.equal(0);
    }
    server = await startServe(['--workers', '2', '--host', '127.0.0.1', '--port', '0'], { env });
    await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'two workers serving');
  });
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  const login = (path: '/auth/jwt' | '/auth/cookie', user: string, password = `${user}-password-1`) =>
    callUrl(`${server.url}${path}`, { method: 'POST', body: { userName: user, password } });
  const loginPair = async (user: string) => (await login('/auth/jwt', user)).body.result as Pair;
  const refresh = (pair: Pair) => callUrl(`${server.url}/auth/refresh`, { method: 'POST', body: pair });
  /** The same call PARALLEL times at once: new connections, which the primary hands to the workers in turn. */
  const burst = (init: { token?: string; cookie?: string }) => Promise.all(Array.from({ length: PARALLEL }, () =>
    callUrl(`${server.url}/sales-order/43659`, { token: init.token, headers: init.cookie ? { Cookie: init.cookie } : {} })));
  const statuses = (replies: UrlReply[]) => replies.map((r) => r.status);

  it(`${PARALLEL} parallel refreshes with one token share one successor; after the grace window one refresh token of the session works`, async () => {
    const pair = await loginPair('kim');
    const replies = await Promise.all(Array.from({ length: PARALLEL }, () => refresh(pair)));
    expect(statuses(replies)).to.deep.equal(Array(PARALLEL).fill(200));
    const answered = replies.map((r) => r.body.result as Pair);
    await new Promise((r) => setTimeout(r, 1_300));
    const distinct = [...new Set(answered.map((p) => p.refreshToken))];
    const tried: UrlReply[] = [];
    for (const refreshToken of distinct) tried.push(await refresh({ accessToken: answered[0].accessToken, refreshToken }));
    expect(tried.filter((r) => r.status === 200), `${distinct.length} distinct refresh tokens`).to.have.length(1);
    expect(distinct).to.have.length(1);
    expect(statuses(await burst({ token: (tried[0].body.result as Pair).accessToken }))).to.deep.equal(Array(PARALLEL).fill(200));
  });

  for (const [action, args] of [['disable', ['user', 'disable', 'lou']], ['set-password', ['user', 'set-password', 'mo', '--password', 'mo-password-2']], ['remove', ['user', 'remove', 'ned']]] as const) {
    it(`user ${action} by the CLI stops the user's access token, cookie session and refresh token on every worker`, async () => {
      const user = args[2];
      const pair = await loginPair(user);
      const cookieLogin = await login('/auth/cookie', user);
      const cookie = cookieLogin.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      // Every worker has seen both credentials as valid before the command runs.
      expect(statuses(await burst({ token: pair.accessToken }))).to.deep.equal(Array(PARALLEL).fill(200));
      expect(statuses(await burst({ cookie }))).to.deep.equal(Array(PARALLEL).fill(200));

      const run = await cli([...args]);
      expect(run.code, run.stderr).to.equal(0);
      await until(async () => statuses([...await burst({ token: pair.accessToken }), ...await burst({ cookie })]).every((s) => s === 401),
        'every worker to refuse the credentials', 10_000, 100);
      expect((await refresh(pair)).status).to.equal(401);
      // Another user's credentials are untouched.
      expect(statuses(await burst({ token: (await loginPair('kim')).accessToken }))).to.deep.equal(Array(PARALLEL).fill(200));
    });
  }
});
