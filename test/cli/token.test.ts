import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { withErrorScope } from 'restlayer';
import { cliEnv, expectCliFailure, lines } from '../support/cli-env.js';
import { killChildren, runCli } from '../support/processes.js';
import { TEST_AUDIENCE, TEST_ISSUER, TEST_KEY, type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

interface Pair {
  accessToken: string;
  refreshToken: string;
}

const invalidRefresh = [{ code: 'Security_InvalidRefreshToken', message: 'Invalid refresh token', severity: 'Error', type: 'Security' }];

describeOneStore('restlayer token (a real process against a running server)', WHY_ONE_STORE.cli, function () {
  this.timeout(120_000);
  after(() => killChildren());

  describe('variant A', () => {
    let server: TestServer;
    const cli = (args: string[]) => runCli(['token', ...args], { env: cliEnv(server) });
    const loginPair = async (userName: string): Promise<Pair> => {
      const reply = await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName, password: `${userName}-password-1` } });
      expect(reply.status, reply.text).to.equal(200);
      return reply.body.result as Pair;
    };
    const refresh = (pair: Pair) => server.call('/auth/refresh', { method: 'POST', token: null, body: pair });
    const getOrder = (token: string) => server.call('/sales-order/43659', { token });
    const issue = async (args: string[]): Promise<Pair> => {
      const run = await cli(['issue', ...args]);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.equal('');
      return JSON.parse(run.stdout) as Pair;
    };

    before(async () => {
      server = await startTestServer({ config: FAST_HASH });
      await addUser(server, 'hank', 'hank-password-1', ['Clerk', 'Administrator'], 'Hank Hill');
      await addUser(server, 'peggy', 'peggy-password-1', ['Clerk']);
      await addUser(server, 'jack', 'jack-password-1', ['Clerk']);
      await addUser(server, 'kate', 'kate-password-1', ['Clerk']);
      await addUser(server, 'liam', 'liam-password-1', ['Clerk']);
    });
    after(() => server?.stop());

    describe('token issue', () => {
      it('prints an AuthToken whose access token works on the running server and whose refresh token refreshes there', async () => {
        const pair = await issue(['--user', 'HANK', '--json']);
        expect(Object.keys(pair).sort()).to.deep.equal(['accessToken', 'refreshToken']);
        const claims = jwt.verify(pair.accessToken, Buffer.from(TEST_KEY, 'base64'), { algorithms: ['HS256'], issuer: TEST_ISSUER, audience: TEST_AUDIENCE }) as jwt.JwtPayload;
        expect(claims).to.include({ sub: 'hank', name: 'Hank Hill' });
        expect(claims.role).to.deep.equal(['Clerk', 'Administrator']);
        expect(claims.exp! - claims.iat!).to.equal(15 * 60);
        expect(claims.jti).to.be.a('string');

        const call = await getOrder(pair.accessToken);
        expect(call.status, call.text).to.equal(200);
        expect(call.body.result.salesOrderId).to.equal(43659);
        // Administrator role carried: the token may flush a lookup table.
        expect((await server.call('/lookup-table/operators', { method: 'DELETE', token: pair.accessToken })).status).to.equal(200);

        const refreshed = await refresh(pair);
        expect(refreshed.status, refreshed.text).to.equal(200);
        const next = refreshed.body.result as Pair;
        expect(next.refreshToken).to.not.equal(pair.refreshToken);
        expect((await getOrder(next.accessToken)).status).to.equal(200);
        expect((await refresh(next)).status).to.equal(200);
      });

      it('without --json the output is the same parseable AuthToken', async () => {
        const pair = await issue(['--user', 'peggy']);
        expect((await getOrder(pair.accessToken)).status).to.equal(200);
        expect((await refresh(pair)).status).to.equal(200);
      });

      it('--minutes sets the access token lifetime (exp - iat)', async () => {
        for (const minutes of [1, 5, 90]) {
          const pair = await issue(['--user', 'hank', '--minutes', String(minutes), '--json']);
          const claims = jwt.decode(pair.accessToken) as jwt.JwtPayload;
          expect(claims.exp! - claims.iat!, `--minutes ${minutes}`).to.equal(minutes * 60);
          expect((await getOrder(pair.accessToken)).status).to.equal(200);
        }
      });

      it('each issue starts a login session of its own', async () => {
        const a = await issue(['--user', 'peggy', '--json']);
        const b = await issue(['--user', 'peggy', '--json']);
        expect(a.refreshToken).to.not.equal(b.refreshToken);
        expect((jwt.decode(a.accessToken) as jwt.JwtPayload).sid).to.not.equal((jwt.decode(b.accessToken) as jwt.JwtPayload).sid);
        expect((await refresh(a)).status).to.equal(200);
        expect((await refresh(b)).status).to.equal(200);
      });

      it('an unknown user: exit 1, one stderr line', async () => {
        const run = await cli(['issue', '--user', 'nobody-here']);
        expectCliFailure(run, 1);
        expect(run.stderr).to.equal("restlayer: User 'nobody-here' not found.\n");
      });

      it('a disabled user: exit 1, one stderr line, and no session is started', async () => {
        await addUser(server, 'dave', 'dave-password-1', ['Clerk']);
        await withErrorScope(() => server.services.users.disable('dave'));
        const sessions = async () => (await server.infrastructure.storage.db.selectFrom('auth_session').select('session_id').where('user_key', '=', 'dave').execute()).length;
        const before = await sessions();
        const run = await cli(['issue', '--user', 'dave']);
        expectCliFailure(run, 1);
        expect(run.stderr).to.equal("restlayer: User 'dave' is disabled.\n");
        // With --json the failure is on stdout too, as JSON.
        const json = await cli(['issue', '--user', 'dave', '--json']);
        expect(json.code).to.equal(1);
        expect(JSON.parse(json.stdout)).to.deep.equal({ error: "User 'dave' is disabled.", exitCode: 1 });
        expect(await sessions()).to.equal(before);
      });

      it('no signing key configured: exit 1 naming the key, and no session is started', async () => {
        const sessions = async () => (await server.infrastructure.storage.db.selectFrom('auth_session').select('session_id').execute()).length;
        const before = await sessions();
        const run = await runCli(['token', 'issue', '--user', 'hank'], {
          env: cliEnv(server, { Authentication__Schemes__Bearer__SigningKeys__0__Issuer: undefined, Authentication__Schemes__Bearer__SigningKeys__0__Value: undefined }),
        });
        expectCliFailure(run, 1, 'Authentication:Schemes:Bearer:SigningKeys is not set');
        expect(await sessions()).to.equal(before);
      });

      it('usage errors exit 2: no --user, a bad --minutes', async () => {
        const bad = ['0', '-5', 'ten', '1.5e3'];
        const [noUser, ...badMinutes] = await Promise.all([cli(['issue']), ...bad.map((m) => cli(['issue', '--user', 'hank', '--minutes', m]))]);
        expectCliFailure(noUser, 2, "required option '--user <name>' not specified");
        for (const run of badMinutes) expectCliFailure(run, 2, '--minutes');
      });
    });

    describe('token rotate', () => {
      it("--user: that user's refresh tokens fail with 401 'Invalid refresh token', access tokens still work, others unaffected", async () => {
        const jack1 = await loginPair('jack');
        const jack2 = await loginPair('jack');
        const kate = await loginPair('kate');

        const run = await cli(['rotate', '--user', 'JACK']);
        expect(run.code, run.stderr).to.equal(0);
        expect(run.stderr).to.equal('');
        expect(lines(run.stdout)).to.deep.equal(['2 refresh token(s) reset for JACK']);

        for (const pair of [jack1, jack2]) {
          const reply = await refresh(pair);
          expect(reply.status, reply.text).to.equal(401);
          expect(reply.body.messages).to.deep.equal(invalidRefresh);
          expect((await getOrder(pair.accessToken)).status).to.equal(200);
        }
        const other = await refresh(kate);
        expect(other.status, other.text).to.equal(200);
        // The user can log in again and refresh as usual.
        expect((await refresh(await loginPair('jack'))).status).to.equal(200);
      });

      it("--all: every user's refresh tokens fail, access tokens still work", async () => {
        const pairs = [await loginPair('kate'), await loginPair('liam'), await issue(['--user', 'hank', '--json'])];
        const run = await cli(['rotate', '--all', '--json']);
        expect(run.code, run.stderr).to.equal(0);
        const out = JSON.parse(run.stdout) as { user: null; reset: number };
        expect(out.user).to.equal(null);
        expect(out.reset).to.be.at.least(pairs.length);
        for (const pair of pairs) {
          const reply = await refresh(pair);
          expect(reply.status, reply.text).to.equal(401);
          expect(reply.body.messages).to.deep.equal(invalidRefresh);
          expect((await getOrder(pair.accessToken)).status).to.equal(200);
        }
        const left = await server.infrastructure.storage.db.selectFrom('refresh_token').select('token_hash').execute();
        expect(left).to.have.length(0);
      });

      it('an unknown user: exit 1, one stderr line', async () => {
        const run = await cli(['rotate', '--user', 'nobody-here']);
        expectCliFailure(run, 1);
        expect(run.stderr).to.equal("restlayer: User 'nobody-here' not found.\n");
      });

      it('neither or both of --user and --all: exit 2, nothing rotated', async () => {
        const pair = await loginPair('liam');
        expectCliFailure(await cli(['rotate']), 2, 'exactly one of --user NAME and --all');
        expectCliFailure(await cli(['rotate', '--user', 'liam', '--all']), 2, 'exactly one of --user NAME and --all');
        expect((await refresh(pair)).status).to.equal(200);
      });
    });
  });

  describe('variant B', () => {
    const SECRET = 'cli-variant-b-secret-that-is-long-enough-0123';
    const bEnv = { AuthConfig__SigningKey: SECRET, AuthConfig__Issuer: 'b-issuer', AuthConfig__Audience: 'b-audience', AuthConfig__ExpiresMin: '30' };
    let server: TestServer;
    const cli = (args: string[], extra: Record<string, string | undefined> = bEnv) => runCli(['token', ...args], { env: cliEnv(server, extra) });
    const verify = (token: string) =>
      jwt.verify(token, Buffer.from(SECRET, 'utf8'), { algorithms: ['HS256'], issuer: 'b-issuer', audience: 'b-audience' }) as jwt.JwtPayload;

    before(async () => {
      server = await startTestServer({ config: { Authentication: { Variant: 'B', PasswordHashCost: 10 } }, env: bEnv });
      await addUser(server, 'ivy', 'ivy-password-1', ['Clerk', 'Administrator'], 'Ivy League');
      await addUser(server, 'walt', 'walt-password-1', ['Clerk']);
      await withErrorScope(() => server.services.users.disable('walt'));
    });
    after(() => server?.stop());

    it('token issue prints a JWT that works on the running server, with the lifetime of AuthConfig:ExpiresMin', async () => {
      const run = await cli(['issue', '--user', 'ivy']);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.equal('');
      const out = lines(run.stdout);
      expect(out).to.have.length(1);
      const claims = verify(out[0]);
      expect(claims).to.include({ sub: 'ivy', name: 'Ivy League' });
      expect(claims.role).to.deep.equal(['Clerk', 'Administrator']);
      expect(claims.exp! - claims.iat!).to.equal(30 * 60);
      const call = await server.call('/sales-order/43659', { token: out[0] });
      expect(call.status, call.text).to.equal(200);
      expect((await server.call('/lookup-table/operators', { method: 'DELETE', token: out[0] })).status).to.equal(200);
    });

    it('--minutes and --json', async () => {
      const run = await cli(['issue', '--user', 'IVY', '--minutes', '7', '--json']);
      expect(run.code, run.stderr).to.equal(0);
      const { token } = JSON.parse(run.stdout) as { token: string };
      expect(verify(token).exp! - verify(token).iat!).to.equal(7 * 60);
      expect((await server.call('/sales-order/43659', { token })).status).to.equal(200);
    });

    it('a CLI with another key prints a token the server refuses (the key comes from the environment)', async () => {
      const run = await cli(['issue', '--user', 'ivy'], { ...bEnv, AuthConfig__SigningKey: 'a-different-secret-that-is-long-enough-99' });
      expect(run.code, run.stderr).to.equal(0);
      const reply = await server.call('/sales-order/43659', { token: lines(run.stdout)[0] });
      expect(reply.status).to.equal(401);
      expect(reply.body.messages[0].code).to.equal('Security_TokenInvalid');
    });

    it('no AuthConfig:SigningKey configured: exit 1 naming the key', async () => {
      const run = await cli(['issue', '--user', 'ivy'], { ...bEnv, AuthConfig__SigningKey: undefined });
      expectCliFailure(run, 1, 'AuthConfig:SigningKey is not set');
    });

    it('an unknown or disabled user: exit 1, one stderr line', async () => {
      const unknown = await cli(['issue', '--user', 'nobody-here']);
      expectCliFailure(unknown, 1);
      expect(unknown.stderr).to.equal("restlayer: User 'nobody-here' not found.\n");
      const disabled = await cli(['issue', '--user', 'walt']);
      expectCliFailure(disabled, 1);
      expect(disabled.stderr).to.equal("restlayer: User 'walt' is disabled.\n");
    });
  });
});
