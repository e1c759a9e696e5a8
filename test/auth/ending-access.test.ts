import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { withErrorScope } from 'restlayer';
import { cliEnv, expectCliFailure, lines } from '../support/cli-env.js';
import { type CliResult, killChildren, runCli } from '../support/processes.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { until } from '../support/wait.js';
import { describeStores } from '../support/stores.js';

interface Pair {
  accessToken: string;
  refreshToken: string;
}

/** What a user holds after logging in every way variant A offers, plus a token minted elsewhere with the server's key. */
interface Held {
  pair: Pair;
  cookie: string;
  /** Signed with the configured key but not by this server (as `dotnet user-jwts` does): no credential stamp. */
  minted: string;
}

const codes = (reply: Reply) => reply.body.messages.map((m) => m.code);
const ORDER = '/sales-order/43659';

/**
 * Contract part 4, "Ending access": `restlayer user disable`, `set-password` and `remove`, run as processes of their
 * own, stop every credential of the user on the running server within Authentication:SessionRecheckSeconds (the
 * default 1 here: the server trusts what it read that long, so the credentials are used just before to be sure the
 * server holds them as valid when the command runs).
 */
describeStores('ending access: user disable, set-password, remove and enable as CLI processes', function () {
  this.timeout(180_000);

  describe('variant A: access token, refresh token, cookie session and minted tokens', () => {
    let server: TestServer;
    const cli = (args: string[], input?: string): Promise<CliResult> => runCli(['user', ...args], { env: cliEnv(server), input });
    const call = (path: string, init: { token?: string | null; cookie?: string } = {}) =>
      server.call(path, { token: init.token ?? null, headers: init.cookie ? { Cookie: init.cookie } : {} });
    const login = (path: '/auth/jwt' | '/auth/cookie', userName: string, password: string) =>
      server.call(path, { method: 'POST', token: null, body: { userName, password } });
    const refresh = (pair: Pair) => server.call('/auth/refresh', { method: 'POST', token: null, body: pair });

    async function logIn(userName: string, password: string): Promise<Held> {
      const first = await login('/auth/jwt', userName, password);
      expect(first.status, first.text).to.equal(200);
      // One refresh first: the chain the user holds is a rotated one.
      const refreshed = await refresh(first.body.result as Pair);
      expect(refreshed.status, refreshed.text).to.equal(200);
      const cookieLogin = await login('/auth/cookie', userName, password);
      expect(cookieLogin.status, cookieLogin.text).to.equal(200);
      const minted = server.token({ sub: userName, iat: Math.floor(Date.now() / 1000) - 5 });
      return { pair: refreshed.body.result as Pair, cookie: cookieHeader(cookieLogin.headers), minted };
    }

    /**
     * Every credential works now, so the server holds each as valid (and has it in its caches). Credentials obtained
     * after an end leave the minted token out: it was minted (`iat`) before the end, and is refused for that.
     */
    async function expectWorking(held: Held, minted = true) {
      const replies = [await call(ORDER, { token: held.pair.accessToken }), await call(ORDER, { cookie: held.cookie })];
      if (minted) replies.push(await call(ORDER, { token: held.minted }));
      for (const reply of replies) expect(reply.status, reply.text).to.equal(200);
    }

    /** Waits (bounded) until every credential is refused, then checks each refusal as the contract words it. */
    async function expectEnded(held: Held) {
      await until(async () => {
        const replies = await Promise.all([call(ORDER, { token: held.pair.accessToken }), call(ORDER, { cookie: held.cookie }), call(ORDER, { token: held.minted })]);
        return replies.every((r) => r.status === 401);
      }, 'every credential of the user to be refused', 10_000, 50);
      const access = await call(ORDER, { token: held.pair.accessToken });
      expect(codes(access)).to.deep.equal(['Security_TokenInvalid']);
      expect(access.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
      expect(codes(await call(ORDER, { cookie: held.cookie }))).to.deep.equal(['Security_Unauthenticated']);
      expect(codes(await call(ORDER, { token: held.minted }))).to.deep.equal(['Security_TokenInvalid']);
      const again = await refresh(held.pair);
      expect(again.status, again.text).to.equal(401);
      expect(again.body.messages).to.deep.equal([{ code: 'Security_InvalidRefreshToken', message: 'Invalid refresh token', severity: 'Error', type: 'Security' }]);
    }

    let bystander: Held;
    before(async () => {
      // Logins refused on purpose must not get the test's own logins throttled.
      server = await startTestServer({ config: { Authentication: { ...FAST_HASH.Authentication, Throttle: { AccountFailures: 50, AddressFailures: 500 } } } });
      expect(server.config.Authentication.SessionRecheckSeconds).to.equal(1);
      await addUser(server, 'bystander', 'bystander-password-1');
      bystander = await logIn('bystander', 'bystander-password-1');
    });
    after(async () => {
      await killChildren();
      await server?.stop();
    });
    // Nobody else's credentials end with the user's.
    afterEach(async () => expectWorking(bystander));

    it('user disable: every credential stops; logins are refused; a second disable says so; enable lets new logins in, old credentials stay ended', async () => {
      await addUser(server, 'dana', 'dana-password-1');
      const held = await logIn('dana', 'dana-password-1');
      await expectWorking(held);

      const run = await cli(['disable', 'Dana']);
      expect(run.code, run.stderr).to.equal(0);
      expect(lines(run.stdout)).to.deep.equal(['user Dana disabled; its sessions have ended']);
      await expectEnded(held);
      expect(codes(await login('/auth/jwt', 'dana', 'dana-password-1'))).to.deep.equal(['Login_InvalidCredentials']);

      const twice = await cli(['disable', 'dana']);
      expect(twice.code, twice.stderr).to.equal(0);
      expect(twice.stderr).to.equal('');
      expect(lines(twice.stdout)).to.deep.equal(['user dana is already disabled']);

      const enabled = await cli(['enable', 'dana']);
      expect(enabled.code, enabled.stderr).to.equal(0);
      expect(lines(enabled.stdout)).to.deep.equal(['user dana enabled']);
      expect(lines((await cli(['enable', 'dana'])).stdout)).to.deep.equal(['user dana is already enabled']);
      // Re-enabling reaches this server within the recheck window too.
      let fresh: Held | undefined;
      await until(async () => {
        fresh = await logIn('dana', 'dana-password-1');
        return (await call(ORDER, { token: fresh.pair.accessToken })).status === 200;
      }, 'a new login to work after enable', 10_000, 100);
      await expectWorking(fresh!, false);
      // What the user held before the disable stays ended.
      expect((await call(ORDER, { token: held.pair.accessToken })).status).to.equal(401);
      expect((await call(ORDER, { cookie: held.cookie })).status).to.equal(401);
      expect((await refresh(held.pair)).status).to.equal(401);
    });

    it('user set-password: every credential stops; the old password is refused, the new one works at once', async () => {
      await addUser(server, 'erik', 'erik-password-1');
      const held = await logIn('erik', 'erik-password-1');
      await expectWorking(held);

      const run = await cli(['set-password', 'erik', '--password-stdin'], 'erik-password-2\n');
      expect(run.code, run.stderr).to.equal(0);
      expect(lines(run.stdout)).to.deep.equal(['password of user erik changed; its sessions have ended']);
      await expectEnded(held);
      expect(codes(await login('/auth/jwt', 'erik', 'erik-password-1'))).to.deep.equal(['Login_InvalidCredentials']);
      // Credentials of the new password work, even issued in the very second of the change.
      await expectWorking(await logIn('erik', 'erik-password-2'), false);

      const viaOption = await cli(['set-password', 'ERIK', '--password', 'erik-password-3']);
      expect(viaOption.code, viaOption.stderr).to.equal(0);
      expect((await login('/auth/cookie', 'erik', 'erik-password-3')).status).to.equal(200);
    });

    it('user set-password: usage errors exit 2, an unknown user exits 1, and nothing changes', async () => {
      await addUser(server, 'fay', 'fay-password-1');
      const held = await logIn('fay', 'fay-password-1');
      const [neither, both, short, unknown] = await Promise.all([
        cli(['set-password', 'fay']),
        cli(['set-password', 'fay', '--password-stdin', '--password', 'fay-password-2'], 'fay-password-2'),
        cli(['set-password', 'fay', '--password', 'short']),
        cli(['set-password', 'nobody-here', '--password', 'nobody-password-1']),
      ]);
      expectCliFailure(neither, 2, 'exactly one of --password-stdin and --password');
      expectCliFailure(both, 2, 'exactly one of --password-stdin and --password');
      expectCliFailure(short, 2, 'password must be at least 8 characters long.');
      expectCliFailure(unknown, 1);
      expect(unknown.stderr).to.equal("restlayer: User 'nobody-here' not found.\n");
      expect((await login('/auth/jwt', 'fay', 'fay-password-1')).status).to.equal(200);
      await expectWorking(held);
    });

    it('user remove: every credential stops and the user is gone; a new user of that name does not revive them', async () => {
      await addUser(server, 'gil', 'gil-password-1');
      const held = await logIn('gil', 'gil-password-1');
      await expectWorking(held);

      const run = await cli(['remove', 'GIL']);
      expect(run.code, run.stderr).to.equal(0);
      expect(lines(run.stdout)).to.deep.equal(['user GIL removed; its sessions have ended']);
      await expectEnded(held);
      expect(codes(await login('/auth/jwt', 'gil', 'gil-password-1'))).to.deep.equal(['Login_InvalidCredentials']);
      expect((await withErrorScope(() => server.services.users.list())).result!.map((u) => u.userName)).to.not.include('gil');

      const unknown = await cli(['remove', 'gil']);
      expectCliFailure(unknown, 1);
      expect(unknown.stderr).to.equal("restlayer: User 'gil' not found.\n");
      expectCliFailure(await cli(['remove']), 2, "missing required argument 'name'");

      const readd = await cli(['add', 'gil', '--role', 'Clerk', '--password', 'gil-password-1']);
      expect(readd.code, readd.stderr).to.equal(0);
      await expectWorking(await logIn('gil', 'gil-password-1'), false);
      expect((await call(ORDER, { token: held.pair.accessToken })).status).to.equal(401);
      expect((await call(ORDER, { cookie: held.cookie })).status).to.equal(401);
      expect((await call(ORDER, { token: held.minted })).status).to.equal(401);
      expect((await refresh(held.pair)).status).to.equal(401);
    });

    it('user disable with the shared store (Redis) down: every credential still stops; the kept cookie sessions are a warning', async () => {
      await addUser(server, 'ivy', 'ivy-password-1');
      const held = await logIn('ivy', 'ivy-password-1');
      await expectWorking(held);
      // Nothing listens there: the command cannot delete the cookie sessions it would keep in Redis.
      const run = await runCli(['user', 'disable', 'ivy'], { env: cliEnv(server, { Cache__Redis__Url: 'redis://127.0.0.1:1', Cache__Redis__KeyPrefix: 'nowhere:' }) });
      expect(run.code, run.stderr).to.equal(0);
      expect(lines(run.stdout)).to.deep.equal(['user ivy disabled; its sessions have ended']);
      expect(lines(run.stderr)).to.have.length(1);
      expect(run.stderr).to.match(/^warning: The cookie sessions of user 'ivy' could not be deleted \(.+\); they are refused all the same and expire by themselves\.\n$/);
      await expectEnded(held);
    });

    it('enable and disable of an unknown user exit 1; no name exits 2', async () => {
      for (const action of ['enable', 'disable']) {
        const run = await cli([action, 'nobody-here']);
        expectCliFailure(run, 1);
        expect(run.stderr).to.equal("restlayer: User 'nobody-here' not found.\n");
        expectCliFailure(await cli([action]), 2, "missing required argument 'name'");
      }
    });

    it('logins racing set-password: whatever a login with the old password obtained stops too (3 rounds)', async () => {
      await addUser(server, 'hal', 'hal-password-0');
      for (let round = 0; round < 3; round++) {
        const [oldPassword, newPassword] = [`hal-password-${round}`, `hal-password-${round + 1}`];
        const pairs: Pair[] = [];
        const cookies: string[] = [];
        let running = true;
        // Logins with the old password go on, from before the command starts until they are refused.
        const loop = async (path: '/auth/jwt' | '/auth/cookie') => {
          while (running && pairs.length + cookies.length < 400) {
            const reply = await login(path, 'hal', oldPassword);
            if (reply.status !== 200) return;
            if (path === '/auth/jwt') pairs.push(reply.body.result as Pair);
            else cookies.push(cookieHeader(reply.headers));
          }
        };
        const loops = (['/auth/jwt', '/auth/cookie'] as const).flatMap((path) => [loop(path), loop(path), loop(path)]);
        await until(() => pairs.length > 0 && cookies.length > 0, 'the first logins');
        const run = await cli(['set-password', 'hal', '--password', newPassword]);
        running = false;
        await Promise.all(loops);
        expect(run.code, run.stderr).to.equal(0);

        await until(async () => {
          const replies = await Promise.all([...pairs.map((p) => call(ORDER, { token: p.accessToken })), ...cookies.map((c) => call(ORDER, { cookie: c }))]);
          return replies.every((r) => r.status === 401);
        }, `every credential of the old password to be refused (round ${round})`, 10_000, 100);
        const refreshes = await Promise.all(pairs.map(refresh));
        expect(refreshes.map((r) => r.status)).to.deep.equal(pairs.map(() => 401));
        await expectWorking(await logIn('hal', newPassword), false);
      }
    });
  });

  describe('variant B: the JWT of /authentication', () => {
    const SECRET = 'variant-b-secret-for-ending-access-0123456789';
    const B = { AuthConfig__SigningKey: SECRET, AuthConfig__Issuer: 'b-issuer', AuthConfig__Audience: 'b-audience' };
    let server: TestServer;
    const cli = (args: string[], input?: string) =>
      runCli(['user', ...args], { env: cliEnv(server, { Authentication__Variant: 'B', ...B }), input });
    const login = async (userName: string, password: string) => {
      const reply = await server.call('/authentication', { method: 'POST', token: null, body: { userName, password } });
      expect(reply.status, reply.text).to.equal(200);
      return reply.body.result as string;
    };
    const minted = (userName: string) => jwt.sign({ sub: userName, role: ['Clerk'], iat: Math.floor(Date.now() / 1000) - 5 }, Buffer.from(SECRET, 'utf8'),
      { algorithm: 'HS256', issuer: 'b-issuer', audience: 'b-audience', expiresIn: 600 });
    const status = async (token: string) => (await server.call(ORDER, { token })).status;

    before(async () => {
      server = await startTestServer({ config: { Authentication: { Variant: 'B', ...FAST_HASH.Authentication } }, env: B });
    });
    after(async () => {
      await killChildren();
      await server?.stop();
    });

    const actions: [string, (user: string) => string[], (user: string) => string][] = [
      ['disable', (u) => ['disable', u], (u) => `user ${u} disabled; its sessions have ended`],
      ['set-password', (u) => ['set-password', u, '--password', 'new-password-2'], (u) => `password of user ${u} changed; its sessions have ended`],
      ['remove', (u) => ['remove', u], (u) => `user ${u} removed; its sessions have ended`],
    ];
    for (const [name, args, said] of actions) {
      it(`user ${name}: the user's JWT (and a token minted with the key) stops; another user's goes on`, async () => {
        const user = `ida-${name}`;
        await addUser(server, user, 'ida-password-1');
        await addUser(server, `other-${name}`, 'other-password-1');
        const token = await login(user, 'ida-password-1');
        const other = await login(`other-${name}`, 'other-password-1');
        const elsewhere = minted(user);
        expect([await status(token), await status(elsewhere), await status(other)]).to.deep.equal([200, 200, 200]);

        const run = await cli(args(user));
        expect(run.code, run.stderr).to.equal(0);
        expect(lines(run.stdout)).to.deep.equal([said(user)]);
        await until(async () => (await status(token)) === 401 && (await status(elsewhere)) === 401, 'the JWT to be refused', 10_000, 50);
        expect(codes(await server.call(ORDER, { token }))).to.deep.equal(['Security_TokenInvalid']);
        expect(await status(other)).to.equal(200);
      });
    }

    it('user enable: a new login works again, the JWT from before the disable stays refused', async () => {
      await addUser(server, 'jon', 'jon-password-1');
      const token = await login('jon', 'jon-password-1');
      expect((await cli(['disable', 'jon'])).code).to.equal(0);
      await until(async () => (await status(token)) === 401, 'the JWT to be refused', 10_000, 50);
      expect((await cli(['enable', 'jon'])).code).to.equal(0);
      let fresh = '';
      await until(async () => (await status((fresh = await login('jon', 'jon-password-1')))) === 200, 'a new login to work', 10_000, 100);
      expect(await status(token)).to.equal(401);
      expect(await status(fresh)).to.equal(200);
    });
  });
});
