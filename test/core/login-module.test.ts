import { expect } from 'chai';
import {
  type Credentials, type RunningServer, type ServiceModule, type UserInfo, createLogger, loadConfig, serviceModule, startServer, withErrorScope,
} from 'restlayer';
import { application } from '../../services/index.js';

/**
 * An application's own login service (the layout promises it may replace the layer's): this one takes Windows-style
 * `CORP\name` user names and hands the bare name to the layer's password check, which it gets from `layer`.
 */
const directoryLogin = serviceModule({
  name: 'directory-login',
  create: ({ layer }) => ({
    login: {
      authenticate: (credentials: Credentials, type: UserInfo['authenticationType']) =>
        layer.login.authenticate({ ...credentials, userName: credentials.userName.replace(/^CORP\\/i, '') }, type),
    },
  }),
});

describe('service modules: an application module may provide its own login service', () => {
  const config = () => loadConfig({ env: { NODE_ENV: 'test' }, overrides: { Storage: { Sqlite: { Path: ':memory:' }, SampleData: false } } }).config;
  const start = (modules: readonly ServiceModule[]) =>
    startServer({ application: { ...application, modules }, config: config(), log: createLogger('error', () => {}), port: 0, host: '127.0.0.1' });
  const login = (server: RunningServer, userName: string, password: string) => fetch(`${server.url}/auth/jwt`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userName, password }),
  });

  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('the login routes use it (through the throttle), and its tokens are accepted', async () => {
    server = await start([...application.modules, directoryLogin]);
    const running = server;
    await withErrorScope(() => running.services.users.add({ userName: 'alice', roles: ['Clerk'], password: 'alice-password-1' }));

    const ok = await login(running, 'CORP\\alice', 'alice-password-1');
    expect(ok.status).to.equal(200);
    const { accessToken } = ((await ok.json()) as { result: { accessToken: string } }).result;
    const session = await fetch(`${running.url}/auth/session`, { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(((await session.json()) as { result: UserInfo }).result.userName).to.equal('alice');

    const wrong = await login(running, 'CORP\\alice', 'not-the-password');
    expect(wrong.status).to.equal(401);
    expect(((await wrong.json()) as { messages: { code: string }[] }).messages.map((m) => m.code)).to.deep.equal(['Login_InvalidCredentials']);
  });

  it("without such a module the layer's login answers: the prefixed name is an unknown user", async () => {
    server = await start(application.modules);
    const running = server;
    await withErrorScope(() => running.services.users.add({ userName: 'alice', roles: ['Clerk'], password: 'alice-password-1' }));
    expect((await login(running, 'CORP\\alice', 'alice-password-1')).status).to.equal(401);
    expect((await login(running, 'alice', 'alice-password-1')).status).to.equal(200);
  });

  it('refuses a second module providing login, naming it', async () => {
    let error: unknown;
    const again = serviceModule({ name: 'other-login', create: ({ layer }) => ({ login: layer.login }) });
    await start([...application.modules, directoryLogin, again]).catch((err: unknown) => (error = err));
    expect(String(error)).to.match(/'other-login' provides 'login'/);
  });
});
