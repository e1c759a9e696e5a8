import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { withErrorScope } from 'restlayer';
import { cliEnv, expectCliFailure, lines } from '../support/cli-env.js';
import { requireServices } from '../support/hooks.js';
import { killChildren, runCli } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { redisPrefix, redisUrl } from '../support/test-stores.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** A server the `restlayer user` process works on, logins through its HTTP API. */
function userCli(get: () => TestServer) {
  const cli = (args: string[], extra: Record<string, string | undefined> = {}) => runCli(['user', ...args], { env: cliEnv(get(), extra) });
  const login = (path: '/auth/jwt' | '/auth/cookie', userName: string, password: string) =>
    get().call(path, { method: 'POST', token: null, body: { userName, password } });
  const getOrder = (init: { token?: string; cookie?: string }) =>
    get().call('/sales-order/43659', { token: init.token ?? null, headers: init.cookie ? { Cookie: init.cookie } : {} });
  const storedRoles = async (name: string) =>
    (await withErrorScope(() => get().services.users.read(name))).result?.roles;
  return { cli, login, getOrder, storedRoles };
}

describeOneStore('restlayer user set-roles and role warnings (a real process against a running server)', WHY_ONE_STORE.cli, function () {
  this.timeout(120_000);
  let server: TestServer;
  const { cli, login, getOrder, storedRoles } = userCli(() => server);

  before(async () => {
    // Asked on every call, so credentials the CLI (another process) ends are refused on the very next call.
    server = await startTestServer({ config: { Authentication: { ...FAST_HASH.Authentication, SessionRecheckSeconds: 0 } } });
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  it("replaces the roles and ends the user's tokens and cookie sessions (they carry the old roles); a new login has the new roles", async () => {
    await addUser(server, 'rita', 'rita-password-1', ['Clerk']);
    const old = (await login('/auth/jwt', 'rita', 'rita-password-1')).body.result as { accessToken: string };
    const cookie = cookieHeader((await login('/auth/cookie', 'rita', 'rita-password-1')).headers);
    expect((await getOrder({ token: old.accessToken })).status).to.equal(200);

    const run = await cli(['set-roles', 'RITA', '--role', 'Administrator', '--role', 'Clerk', '--role', 'Administrator']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.equal('');
    expect(lines(run.stdout)).to.deep.equal(['roles of user RITA set to Administrator, Clerk; its sessions have ended']);
    expect(await storedRoles('rita')).to.deep.equal(['Administrator', 'Clerk']);

    expect((await getOrder({ token: old.accessToken })).status).to.equal(401);
    expect((await getOrder({ cookie })).status).to.equal(401);
    const fresh = (await login('/auth/jwt', 'rita', 'rita-password-1')).body.result as { accessToken: string };
    expect((jwt.decode(fresh.accessToken) as jwt.JwtPayload).role).to.deep.equal(['Administrator', 'Clerk']);

    // The same roles again: nothing changes, and the message says so; the fresh token keeps working.
    const again = await cli(['set-roles', 'rita', '--role', 'Administrator', '--role', 'Clerk', '--json']);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.deep.equal({ userName: 'rita', roles: ['Administrator', 'Clerk'], changed: false, sessionsEnded: false });
    expect((await getOrder({ token: fresh.accessToken })).status).to.equal(200);
    const text = await cli(['set-roles', 'rita', '--role', 'Administrator', '--role', 'Clerk']);
    expect(lines(text.stdout)).to.deep.equal(['user rita already has roles Administrator, Clerk; nothing changed']);
  });

  it('an unknown user: exit 1, one line; no --role, or an unknown option besides: exit 2, the unknown option reported first', async () => {
    expectCliFailure(await cli(['set-roles', 'nobody-here', '--role', 'Clerk']), 1, "User 'nobody-here' not found.");
    expectCliFailure(await cli(['set-roles', 'rita']), 2, "required option '--role <role>' not specified");
    expectCliFailure(await cli(['set-roles', 'rita', '--rol', 'Clerk']), 2, "unknown option '--rol'");
    expectCliFailure(await cli(['add', 'sam', '--rol', 'Clerk', '--password', 'sam-password-1']), 2, "unknown option '--rol'");
  });

  it('a role no configuration grants and no user holds: a warning on stderr naming the known roles, and the user is created all the same', async () => {
    const run = await cli(['add', 'tess', '--role', 'Clerk', '--role', 'Adminstrator', '--password', 'tess-password-1']);
    expect(run.code, run.stderr).to.equal(0);
    expect(lines(run.stdout)).to.deep.equal(['user tess created with roles Clerk, Adminstrator']);
    expect(lines(run.stderr)).to.have.length(1);
    expect(run.stderr).to.match(/^warning: role 'Adminstrator' is configured in no Authorization:Roles and held by no user \(known roles: Administrator, Clerk, SalesPerson, Viewer\)/);
    expect(await storedRoles('tess')).to.deep.equal(['Clerk', 'Adminstrator']);

    // Now a user holds it: known from then on. Known roles give no warning.
    const next = await cli(['set-roles', 'rita', '--role', 'Adminstrator']);
    expect(next.code, next.stderr).to.equal(0);
    expect(next.stderr).to.equal('');
    const known = await cli(['add', 'uma', '--role', 'Administrator', '--password', 'uma-password-1']);
    expect(known.stderr).to.equal('');
  });

  it('--json failures: the error as a JSON object on stdout besides the line on stderr', async () => {
    const run = await cli(['set-roles', 'nobody-here', '--role', 'Clerk', '--json']);
    expect(run.code).to.equal(1);
    expect(JSON.parse(run.stdout)).to.deep.equal({ error: "User 'nobody-here' not found.", exitCode: 1 });
    expect(lines(run.stderr)).to.deep.equal(["restlayer: User 'nobody-here' not found."]);
  });

});

describeOneStore('restlayer user unlock without Redis: through the running server (a real process)', WHY_ONE_STORE.cli, function () {
  this.timeout(120_000);
  let server: TestServer;
  const { cli, login } = userCli(() => server);
  const port = () => new URL(server.url).port;

  before(async () => {
    const throttle = { AccountFailures: 3, AddressFailures: 100, WindowSeconds: 600 };
    server = await startTestServer({ config: { Authentication: { ...FAST_HASH.Authentication, Throttle: throttle } } });
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  it("clears the account's failed logins in the server's memory: the right password works again at once", async () => {
    await addUser(server, 'wanda', 'wanda-password-1', ['Clerk']);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await login('/auth/jwt', 'wanda', 'wrong-password')).status);
    statuses.push((await login('/auth/jwt', 'wanda', 'wanda-password-1')).status);
    expect(statuses).to.deep.equal([401, 401, 401, 429]);

    // Without --url: the configured server (Server:Port), as lookup flush finds it.
    const run = await cli(['unlock', 'WANDA'], { Server__Port: port() });
    expect(run.code, run.stderr).to.equal(0);
    expect(lines(run.stdout)).to.deep.equal(['login throttling of user WANDA cleared']);
    expect((await login('/auth/jwt', 'wanda', 'wanda-password-1')).status).to.equal(200);

    const again = await cli(['unlock', 'wanda', '--json', '--url', server.url]);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.deep.equal({ userName: 'wanda', cleared: false });
    expectCliFailure(await cli(['unlock', 'nobody-here', '--url', server.url]), 1, "User 'nobody-here' not found.");
  });

  it('no server running: exit 1 naming the URL', async () => {
    expectCliFailure(await cli(['unlock', 'wanda', '--url', 'http://127.0.0.1:9']), 1, 'cannot reach the server at http://127.0.0.1:9');
  });
});

describeOneStore('restlayer user unlock with Redis (a real process against a running server)', WHY_ONE_STORE.cli, function () {
  this.timeout(120_000);
  let server: TestServer;
  const { cli, login } = userCli(() => server);

  before(async function () {
    await requireServices(this, ['redis'], 'user unlock with Redis');
    const throttle = { AccountFailures: 3, AddressFailures: 100, WindowSeconds: 600 };
    server = await startTestServer({
      config: { Authentication: { ...FAST_HASH.Authentication, Throttle: throttle }, Cache: { Redis: { Url: redisUrl, KeyPrefix: redisPrefix() } } },
    });
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  it("clears the account's failed logins in Redis: the right password works again at once; a second unlock finds nothing", async () => {
    await addUser(server, 'vera', 'vera-password-1', ['Clerk']);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await login('/auth/jwt', 'vera', 'wrong-password')).status);
    statuses.push((await login('/auth/jwt', 'vera', 'vera-password-1')).status);
    expect(statuses).to.deep.equal([401, 401, 401, 429]);

    const run = await cli(['unlock', 'VERA']);
    expect(run.code, run.stderr).to.equal(0);
    expect(lines(run.stdout)).to.deep.equal(['login throttling of user VERA cleared']);
    expect((await login('/auth/jwt', 'vera', 'vera-password-1')).status).to.equal(200);

    const again = await cli(['unlock', 'vera', '--json']);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.deep.equal({ userName: 'vera', cleared: false });
    expectCliFailure(await cli(['unlock', 'nobody-here']), 1, "User 'nobody-here' not found.");
  });

  it('without the servers\' cookie keys (which name the counters in Redis) it fails, naming the setting, instead of finding nothing', async () => {
    expectCliFailure(await cli(['unlock', 'vera'], { Authentication__Cookie__Keys: undefined }), 1, 'Authentication:Cookie:Keys is not set');
  });
});

/**
 * Issue 38.1: after AddressFailures failed logins from one address, everyone behind it (an office behind one NAT or
 * proxy) is refused for the window, and `user unlock` cleared accounts only. `user unlock-address` clears an address,
 * through the running server without Redis, in Redis with it.
 */
for (const redis of [false, true]) {
  describeOneStore(`restlayer user unlock-address ${redis ? 'with Redis' : 'without Redis: through the running server'} (a real process)`, WHY_ONE_STORE.cli, function () {
    this.timeout(120_000);
    let server: TestServer;
    const { cli } = userCli(() => server);

    before(async function () {
      if (redis) await requireServices(this, ['redis'], 'user unlock-address with Redis');
      const throttle = { AccountFailures: 50, AddressFailures: 3, WindowSeconds: 600 };
      server = await startTestServer({
        config: {
          Server: { TrustProxy: true },
          Authentication: { ...FAST_HASH.Authentication, Throttle: throttle },
          ...(redis ? { Cache: { Redis: { Url: redisUrl, KeyPrefix: redisPrefix() } } } : {}),
        },
      });
      await addUser(server, 'xena', 'xena-password-1', ['Clerk']);
    });
    after(async () => {
      await killChildren();
      await server?.stop();
    });

    const loginFrom = (address: string, userName: string, password: string) =>
      server.call('/auth/jwt', { method: 'POST', token: null, body: { userName, password }, headers: { 'X-Forwarded-For': address } });
    /** Three failed logins of other people from `address`: past AddressFailures, xena is refused there. */
    const lockOut = async (address: string) => {
      for (let i = 0; i < 3; i++) expect((await loginFrom(address, `someone-${i}`, 'wrong-password')).status).to.equal(401);
      expect((await loginFrom(address, 'xena', 'xena-password-1')).status).to.equal(429);
    };
    // Without Redis the counters are in the server's memory: the CLI asks it, at --url.
    const args = (...more: string[]) => [...more, ...(redis ? [] : ['--url', server.url])];

    it('clears the address: everyone behind it logs in again at once; a second unlock finds nothing', async () => {
      await lockOut('203.0.113.9');
      // Another address is not affected.
      expect((await loginFrom('203.0.113.10', 'xena', 'xena-password-1')).status).to.equal(200);
      // `user unlock` of the account does not help: the address is what is spent.
      expect((await cli(args('unlock', 'xena'))).code).to.equal(0);
      expect((await loginFrom('203.0.113.9', 'xena', 'xena-password-1')).status).to.equal(429);

      const run = await cli(args('unlock-address', '203.0.113.9'));
      expect(run.code, run.stderr).to.equal(0);
      expect(lines(run.stdout)).to.deep.equal(['login throttling of address 203.0.113.9 cleared: everyone behind it may log in again']);
      expect((await loginFrom('203.0.113.9', 'xena', 'xena-password-1')).status).to.equal(200);

      const again = await cli(args('unlock-address', '203.0.113.9', '--json'));
      expect(again.code, again.stderr).to.equal(0);
      expect(JSON.parse(again.stdout)).to.deep.equal({ address: '203.0.113.9', cleared: false });
    });

    it('one address however it is written: IPv4 as seen on a dual-stack socket, IPv6 in any case and with zeros', async () => {
      await lockOut('::ffff:198.51.100.4');
      expect(JSON.parse((await cli(args('unlock-address', '198.51.100.4', '--json'))).stdout)).to.deep.equal({ address: '198.51.100.4', cleared: true });
      expect((await loginFrom('198.51.100.4', 'xena', 'xena-password-1')).status).to.equal(200);
      await lockOut('2001:DB8:0:0::7');
      expect(JSON.parse((await cli(args('unlock-address', '2001:db8::7', '--json'))).stdout)).to.deep.equal({ address: '2001:db8::7', cleared: true });
      expect((await loginFrom('2001:db8::7', 'xena', 'xena-password-1')).status).to.equal(200);
    });

    it('something that is no address is a usage error', async () => {
      expectCliFailure(await cli(args('unlock-address', 'not-an-address')), 2, '"not-an-address" is not an IPv4 or IPv6 address');
    });
  });
}
