import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { attributeRoutesDir } from '../support/api.js';
import { cliEnv } from '../support/cli-env.js';
import { killChildren, runCli } from '../support/processes.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { until } from '../support/wait.js';
import { describeStores } from '../support/stores.js';

interface Echo {
  userName: string;
  authenticationType: string;
  attributes: Record<string, string>;
}

/**
 * Issue 24 item 3: user attributes reach a running server's handlers (`principal.attributes`) through the same
 * cache as the credential stamp. A change made by the CLI (another process) shows within SessionRecheckSeconds,
 * without ending the user's sessions; on PostgreSQL + Redis as on SQLite.
 */
describeStores('user attributes as a running server sees them (principal.attributes)', function () {
  this.timeout(120_000);
  let server: TestServer;
  const cli = (args: string[]) => runCli(['user', ...args], { env: cliEnv(server) });
  const login = (path: '/auth/jwt' | '/auth/cookie', userName: string) =>
    server.call(path, { method: 'POST', token: null, body: { userName, password: `${userName}-password-1` } });
  const echo = (init: { token?: string; cookie?: string }) =>
    server.call('/caller-attributes', { token: init.token ?? null, headers: init.cookie ? { Cookie: init.cookie } : {} });
  const attributesIn = (reply: Reply) => {
    expect(reply.status, reply.text).to.equal(200);
    return (reply.body.result as Echo).attributes;
  };
  /** A bearer and a cookie caller of `user`, logged in now. */
  const callers = async (user: string) => {
    const bearer = (await login('/auth/jwt', user)).body.result as { accessToken: string };
    const cookie = cookieHeader((await login('/auth/cookie', user)).headers);
    return [{ token: bearer.accessToken }, { cookie }];
  };
  const ok = async (args: string[]) => {
    const run = await cli(args);
    expect(run.code, run.stderr).to.equal(0);
    return run;
  };

  before(async () => {
    // A short recheck window: what the CLI changes must show within it, with no restart.
    server = await startTestServer({
      routesDir: attributeRoutesDir,
      config: { Authentication: { ...FAST_HASH.Authentication, SessionRecheckSeconds: 1 } },
    });
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  it('a user added with --attribute: its bearer and cookie callers carry the attributes; set-attribute and remove-attribute show within the recheck window, sessions going on', async () => {
    await ok(['add', 'sally', '--role', 'Clerk', '--attribute', 'salesPersonId=279', '--attribute', 'region=north', '--password', 'sally-password-1']);
    const both = await callers('sally');
    for (const caller of both) {
      const reply = await echo(caller);
      expect(reply.body.result, reply.text).to.deep.include({ userName: 'sally' });
      expect(attributesIn(reply)).to.deep.equal({ region: 'north', salesPersonId: '279' });
    }

    await ok(['set-attribute', 'SALLY', 'salesPersonId', '280']);
    await until(async () => {
      const seen = await Promise.all(both.map(async (c) => attributesIn(await echo(c)).salesPersonId));
      return seen.every((v) => v === '280');
    }, 'both callers to see salesPersonId 280', 10_000, 100);
    // Nothing else changed, and the same credentials still work: attributes are not carried by tokens or cookies.
    for (const caller of both) expect(attributesIn(await echo(caller))).to.deep.equal({ region: 'north', salesPersonId: '280' });

    await ok(['remove-attribute', 'sally', 'region']);
    await until(async () => (await Promise.all(both.map(async (c) => 'region' in attributesIn(await echo(c))))).every((has) => !has),
      'both callers to lose region', 10_000, 100);
    for (const caller of both) expect(attributesIn(await echo(caller))).to.deep.equal({ salesPersonId: '280' });
  });

  it('a user without attributes, and a token minted elsewhere for a user the server does not know: empty attributes', async () => {
    await addUser(server, 'norma', 'norma-password-1', ['Clerk']);
    for (const caller of await callers('norma')) expect(attributesIn(await echo(caller))).to.deep.equal({});
    const minted = server.token({ sub: 'stranger' });
    const reply = await echo({ token: minted });
    expect(reply.body.result).to.deep.equal({ userName: 'stranger', authenticationType: 'Bearer', attributes: {} });
  });

  it("a change made through the server's own user service shows on its very next request", async () => {
    await addUser(server, 'quinn', 'quinn-password-1', ['Clerk']);
    const [bearer] = await callers('quinn');
    expect(attributesIn(await echo(bearer))).to.deep.equal({});
    const set = await withErrorScope(() => server.services.users.setAttribute('quinn', 'salesPersonId', '281'));
    expect(set.result).to.equal(true);
    expect(attributesIn(await echo(bearer))).to.deep.equal({ salesPersonId: '281' });

    // The service refuses what the store cannot keep, as the CLI does, with the message the CLI prints.
    const bad = await withErrorScope(() => server.services.users.setAttribute('quinn', 'sales person', '1'));
    expect(bad.messages.map((m) => [m.code, m.message])).to.deep.equal([
      ['User_AttributeInvalid', "The attribute key 'sales person' must be 1 to 64 letters, digits, '_', '.' or '-'."]]);
    const added = await withErrorScope(() => server.services.users.add({ userName: 'quade', password: 'quade-password-1', roles: ['Clerk'] }, { note: 'x'.repeat(257) }));
    expect(added.messages.map((m) => m.code)).to.deep.equal(['User_AttributeInvalid']);
    expect((await withErrorScope(() => server.services.users.read('quade'))).result).to.equal(undefined);
    expect(attributesIn(await echo(bearer))).to.deep.equal({ salesPersonId: '281' });
  });

  it("removing a user removes its attributes: a user added again under the name starts with none", async () => {
    await ok(['add', 'rory', '--role', 'Clerk', '--attribute', 'salesPersonId=282', '--password', 'rory-password-1']);
    await ok(['remove', 'rory']);
    await ok(['add', 'rory', '--role', 'Clerk', '--password', 'rory-password-1']);
    const listed = JSON.parse((await ok(['list', '--json'])).stdout) as { userName: string; attributes: Record<string, string> }[];
    expect(listed.find((u) => u.userName === 'rory')?.attributes).to.deep.equal({});
    const [bearer] = await callers('rory');
    expect(attributesIn(await echo(bearer))).to.deep.equal({});
  });
});

describeStores('user attributes are cached with the credential state', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    // A long recheck window: a state read once is trusted for the whole test, attributes included.
    server = await startTestServer({
      routesDir: attributeRoutesDir,
      config: { Authentication: { ...FAST_HASH.Authentication, SessionRecheckSeconds: 3600 } },
    });
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  it("another process's change is not read on every request (the cached state answers until the window ends); a change in this process clears it at once", async () => {
    await addUser(server, 'cora', 'cora-password-1', ['Clerk']);
    await withErrorScope(() => server.services.users.setAttribute('cora', 'salesPersonId', '290'));
    const token = ((await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'cora', password: 'cora-password-1' } })).body.result as { accessToken: string }).accessToken;
    const attributes = async () => {
      const reply = await server.call('/caller-attributes', { token });
      expect(reply.status, reply.text).to.equal(200);
      return (reply.body.result as Echo).attributes;
    };
    expect(await attributes()).to.deep.equal({ salesPersonId: '290' });

    const run = await runCli(['user', 'set-attribute', 'cora', 'salesPersonId', '291'], { env: cliEnv(server) });
    expect(run.code, run.stderr).to.equal(0);
    for (let i = 0; i < 3; i++) expect(await attributes()).to.deep.equal({ salesPersonId: '290' });

    // What this process changes itself it forgets at once, and the next request reads the store: the CLI's value too.
    await withErrorScope(() => server.services.users.setAttribute('cora', 'region', 'south'));
    expect(await attributes()).to.deep.equal({ region: 'south', salesPersonId: '291' });
  });
});
