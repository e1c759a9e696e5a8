import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { withErrorScope } from 'restlayer';
import { cliEnv, expectCliFailure, lines } from '../support/cli-env.js';
import { killChildren, runCli } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

interface Pair {
  accessToken: string;
  refreshToken: string;
}

describeOneStore('restlayer user (a real process against a running server)', WHY_ONE_STORE.cli, function () {
  this.timeout(120_000);
  let server: TestServer;
  const cli = (args: string[], input?: string) => runCli(['user', ...args], { env: cliEnv(server), input });
  const storedUser = async (name: string) => (await withErrorScope(() => server.services.users.list())).result!.find((u) => u.userName.toLowerCase() === name.toLowerCase());

  const login = (path: '/auth/jwt' | '/auth/cookie', userName: string, password: string) =>
    server.call(path, { method: 'POST', token: null, body: { userName, password } });
  const loginPair = async (userName: string, password: string): Promise<Pair> => {
    const reply = await login('/auth/jwt', userName, password);
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.result as Pair;
  };
  const refresh = (pair: Pair) => server.call('/auth/refresh', { method: 'POST', token: null, body: pair });
  const getOrder = (init: { token?: string | null; cookie?: string }) =>
    server.call('/sales-order/43659', { token: init.token ?? null, headers: init.cookie ? { Cookie: init.cookie } : {} });

  before(async () => {
    // Asked on every call, so a user disabled by the CLI (another process) is refused on the very next call.
    server = await startTestServer({ config: { Authentication: { ...FAST_HASH.Authentication, SessionRecheckSeconds: 0 } } });
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  describe('user add', () => {
    it('creates a user from --password-stdin with roles and a display name; it can log in over HTTP', async () => {
      const run = await cli(['add', 'Dora', '--role', 'Clerk', '--role', 'Administrator', '--display-name', 'Dora Explorer', '--password-stdin'], 'dora-password-1\n');
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.equal('');
      expect(lines(run.stdout)).to.deep.equal(['user Dora created with roles Clerk, Administrator']);

      // The trailing newline of the piped password is not part of it.
      const pair = await loginPair('dora', 'dora-password-1');
      const claims = jwt.decode(pair.accessToken) as jwt.JwtPayload;
      expect(claims).to.include({ sub: 'Dora', name: 'Dora Explorer' });
      expect(claims.role).to.deep.equal(['Clerk', 'Administrator']);
      expect((await getOrder({ token: pair.accessToken })).status).to.equal(200);

      const cookie = await login('/auth/cookie', 'DORA', 'dora-password-1');
      expect(cookie.body.result).to.deep.include({ userName: 'Dora', name: 'Dora Explorer', roles: ['Clerk', 'Administrator'], authenticationType: 'Cookies' });
      // Both roles' permissions, the layer's from Administrator included.
      expect(cookie.body.result.permissions).to.include.members(['lookup-table.flush', 'sales-order.delete']);
      expect((await login('/auth/jwt', 'dora', 'dora-password-1\n')).status).to.equal(401);
    });

    it('creates a user from --password; the display name defaults to the user name', async () => {
      const run = await cli(['add', 'eddie', '--role', 'Clerk', '--password', 'eddie-password-1']);
      expect(run.code, run.stderr).to.equal(0);
      const reply = await login('/auth/cookie', 'eddie', 'eddie-password-1');
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.body.result).to.deep.include({ userName: 'eddie', name: 'eddie', roles: ['Clerk'] });
    });

    it('--json prints the created user as JSON and nothing else', async () => {
      const run = await cli(['add', 'fiona', '--role', 'Administrator', '--role', 'Clerk', '--role', 'Administrator', '--display-name', 'Fiona S.', '--password-stdin', '--json'], 'fiona-password-1');
      expect(run.code, run.stderr).to.equal(0);
      const created = JSON.parse(run.stdout);
      expect(created).to.deep.include({ userName: 'fiona', name: 'Fiona S.', roles: ['Administrator', 'Clerk'], disabled: false });
      expect(Number.isNaN(Date.parse(created.createdDate)), created.createdDate).to.equal(false);
      expect(await storedUser('fiona')).to.deep.include({ name: 'Fiona S.', roles: ['Administrator', 'Clerk'] });
    });

    it('a user that exists (names match case-insensitively): exit 1, one stderr line, the first user unchanged', async () => {
      await addUser(server, 'gus', 'gus-password-1', ['Clerk']);
      const run = await cli(['add', 'GUS', '--role', 'Administrator', '--password', 'other-password-1']);
      expectCliFailure(run, 1, "User 'GUS' already exists.");
      expect(run.stderr).to.equal("restlayer: User 'GUS' already exists.\n");
      expect((await login('/auth/jwt', 'gus', 'gus-password-1')).status).to.equal(200);
      expect((await login('/auth/jwt', 'gus', 'other-password-1')).status).to.equal(401);
      expect((await storedUser('gus'))!.roles).to.deep.equal(['Clerk']);
      // --json gets the failure as JSON on stdout too.
      const json = await cli(['add', 'gus', '--role', 'Clerk', '--password', 'other-password-1', '--json']);
      expect(json.code).to.equal(1);
      expect(JSON.parse(json.stdout)).to.deep.equal({ error: "User 'gus' already exists.", exitCode: 1 });
    });

    it('neither or both password options: exit 2 and no user', async () => {
      expectCliFailure(await cli(['add', 'hazel', '--role', 'Clerk']), 2, 'exactly one of --password-stdin and --password');
      expectCliFailure(await cli(['add', 'hazel', '--role', 'Clerk', '--password-stdin', '--password', 'hazel-password-1'], 'hazel-password-1'), 2, 'exactly one of');
      expect(await storedUser('hazel')).to.equal(undefined);
    });

    it('other usage errors exit 2 with one line and create nothing: no --role, a short or empty password, an unknown option, no name', async () => {
      const [noRole, short, empty, bogus, noName, emptyName] = await Promise.all([
        cli(['add', 'ian', '--password', 'ian-password-1']),
        cli(['add', 'ian', '--role', 'Clerk', '--password', 'short']),
        cli(['add', 'ian', '--role', 'Clerk', '--password-stdin'], ''),
        cli(['add', 'ian', '--role', 'Clerk', '--password', 'ian-password-1', '--bogus']),
        cli(['add', '--role', 'Clerk', '--password', 'ian-password-1']),
        cli(['add', '', '--role', 'Clerk', '--password', 'ian-password-1']),
      ]);
      expectCliFailure(noRole, 2, "required option '--role <role>' not specified");
      expectCliFailure(short, 2, 'password must be at least 8 characters long.');
      expectCliFailure(empty, 2, 'password must be at least 8 characters long.');
      expectCliFailure(bogus, 2, "unknown option '--bogus'");
      expectCliFailure(noName, 2, "missing required argument 'name'");
      expectCliFailure(emptyName, 2, 'userName is required.');
      expect(await storedUser('ian')).to.equal(undefined);
    });

    it('a mistyped command or option gets a suggestion on the same line (exit 2, one line; --json too)', async () => {
      const [command, option, group, json] = await Promise.all([
        cli(['ad', 'ian', '--role', 'Clerk', '--password', 'ian-password-1']),
        cli(['add', 'ian', '--rol', 'Clerk', '--password', 'ian-password-1']),
        runCli(['usr', 'list'], { env: cliEnv(server) }),
        cli(['ad', 'ian', '--json']),
      ]);
      expectCliFailure(command, 2, "error: unknown command 'ad' (did you mean add?)");
      expectCliFailure(option, 2, "error: unknown option '--rol' (did you mean --role?)");
      expectCliFailure(group, 2, "error: unknown command 'usr' (did you mean user?)");
      expect(json.code).to.equal(2);
      expect(JSON.parse(json.stdout)).to.deep.equal({ error: "unknown command 'ad' (did you mean add?)", exitCode: 2 });
      expect(lines(json.stderr)).to.have.length(1);
      expect(await storedUser('ian')).to.equal(undefined);
    });
  });

  describe('user list', () => {
    before(async () => {
      await addUser(server, 'lena', 'lena-password-1', ['Clerk']);
      await addUser(server, 'Max', 'max-password-1', ['Clerk', 'Administrator'], 'Max Power');
      const disabled = await cli(['disable', 'max']);
      expect(disabled.code, disabled.stderr).to.equal(0);
    });

    it('--json lists every user with display name, roles and disabled state', async () => {
      const run = await cli(['list', '--json']);
      expect(run.code, run.stderr).to.equal(0);
      const users = JSON.parse(run.stdout) as { userName: string; name: string; roles: string[]; disabled: boolean }[];
      const pick = (name: string) => users.find((u) => u.userName === name);
      expect(pick('lena')).to.deep.include({ name: 'lena', roles: ['Clerk'], disabled: false });
      expect(pick('Max')).to.deep.include({ name: 'Max Power', roles: ['Clerk', 'Administrator'], disabled: true });
      expect(pick('Dora')).to.deep.include({ name: 'Dora Explorer', roles: ['Clerk', 'Administrator'], disabled: false });
      const expected = (await withErrorScope(() => server.services.users.list())).result!.map((u) => u.userName);
      expect(users.map((u) => u.userName)).to.deep.equal(expected);
    });

    it('prints one line per user: name, display name, roles, state', async () => {
      const run = await cli(['list']);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.equal('');
      const out = lines(run.stdout);
      expect(out).to.include('lena\tlena\tClerk\tactive');
      expect(out).to.include('Max\tMax Power\tClerk,Administrator\tdisabled');
      expect(out).to.have.length((await withErrorScope(() => server.services.users.list())).result!.length);
    });
  });

  describe('control characters in what the CLI prints', () => {
    // Cursor up, erase the line: listed raw, this name wiped out the row printed before it.
    const wiper = 'mallory\u001b[1A\u001b[2K';
    const shown = 'mallory\\x1b[1A\\x1b[2K';
    before(async () => {
      // Made through the service, as a name stored before the CLI refused them (or by another tool) would be.
      await addUser(server, wiper, 'mallory-password-1', ['Clerk'], 'Mallory\u009b2J\u202e');
    });

    it('user list escapes them; --json keeps the exact name', async () => {
      const run = await cli(['list']);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.not.match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(lines(run.stdout)).to.include(`${shown}\tMallory\\x9b2J\\u202e\tClerk\tactive`);
      const json = JSON.parse((await cli(['list', '--json'])).stdout) as { userName: string; name: string }[];
      expect(json.find((u) => u.userName === wiper)).to.deep.include({ name: 'Mallory\u009b2J\u202e' });
    });

    it('messages and errors naming such a user escape them too', async () => {
      const disabled = await cli(['disable', wiper]);
      expect(disabled.code, disabled.stderr).to.equal(0);
      expect(disabled.stdout).to.equal(`user ${shown} disabled; its sessions have ended\n`);
      const unknown = await cli(['enable', `${wiper}-nobody`]);
      expectCliFailure(unknown, 1, `User '${shown}-nobody' not found.`);
      expect(unknown.stderr).to.not.include('\u001b');
    });

    it('the role warning escapes the role it names', async () => {
      const run = await cli(['add', 'rolf', '--role', 'Admin\u001b[2K', '--password', 'rolf-password-1']);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.include("warning: role 'Admin\\x1b[2K' is configured in no Authorization:Roles");
      expect(run.stderr).to.not.include('\u001b');
    });

    it('user add refuses a new name or display name holding them: exit 2, nothing created', async () => {
      expectCliFailure(await cli(['add', 'eve\u001b[2K', '--role', 'Clerk', '--password', 'eve-password-1']), 2, "user name 'eve\\x1b[2K' holds control characters");
      expectCliFailure(await cli(['add', 'eve', '--display-name', 'Eve\nAdmin', '--role', 'Clerk', '--password', 'eve-password-1']), 2, 'holds control characters');
      expect(await storedUser('eve')).to.equal(undefined);
    });
  });

  describe('user disable', () => {
    it("ends the user's access token, refresh token and cookie session on the running server at once", async () => {
      await addUser(server, 'nina', 'nina-password-1', ['Clerk']);
      // A refresh just before proves the refresh token chain works; the access tokens are used right before too.
      const refreshed = await refresh(await loginPair('nina', 'nina-password-1'));
      expect(refreshed.status, refreshed.text).to.equal(200);
      const pair = refreshed.body.result as Pair;
      const cookie = cookieHeader((await login('/auth/cookie', 'nina', 'nina-password-1')).headers);
      expect((await getOrder({ token: pair.accessToken })).status).to.equal(200);
      expect((await getOrder({ cookie })).status).to.equal(200);

      const run = await cli(['disable', 'NINA']);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.equal('');

      const access = await getOrder({ token: pair.accessToken });
      expect(access.status, access.text).to.equal(401);
      expect(access.body.messages.map((m) => m.code)).to.deep.equal(['Security_TokenInvalid']);
      const viaCookie = await getOrder({ cookie });
      expect(viaCookie.status, viaCookie.text).to.equal(401);
      expect(viaCookie.body.messages.map((m) => m.code)).to.deep.equal(['Security_Unauthenticated']);
      const again = await refresh(pair);
      expect(again.status, again.text).to.equal(401);
      expect(again.body.messages).to.deep.equal([{ code: 'Security_InvalidRefreshToken', message: 'Invalid refresh token', severity: 'Error', type: 'Security' }]);
      const relogin = await login('/auth/jwt', 'nina', 'nina-password-1');
      expect(relogin.status).to.equal(401);
      expect(relogin.body.messages[0].code).to.equal('Login_InvalidCredentials');
      expect((await storedUser('nina'))!.disabled).to.equal(true);
    });

    it("leaves other users' sessions alone", async () => {
      await addUser(server, 'oscar', 'oscar-password-1', ['Clerk']);
      await addUser(server, 'olga', 'olga-password-1', ['Clerk']);
      const pair = await loginPair('olga', 'olga-password-1');
      const cookie = cookieHeader((await login('/auth/cookie', 'olga', 'olga-password-1')).headers);
      const run = await cli(['disable', 'oscar']);
      expect(run.code, run.stderr).to.equal(0);
      expect((await getOrder({ token: pair.accessToken })).status).to.equal(200);
      expect((await getOrder({ cookie })).status).to.equal(200);
      expect((await refresh(pair)).status).to.equal(200);
    });

    it('an unknown user: exit 1 with one stderr line', async () => {
      const run = await cli(['disable', 'nobody-here']);
      expectCliFailure(run, 1);
      expect(run.stderr).to.equal("restlayer: User 'nobody-here' not found.\n");
    });

    it('no user name: exit 2', async () => {
      expectCliFailure(await cli(['disable']), 2, "missing required argument 'name'");
    });
  });
});
