import { expect } from 'chai';
import { join } from 'node:path';
import { createLogger, layerRoutesDir, loadConfig, startServer } from 'restlayer';
import { echoRoute, routeFolder } from '../support/route-fixtures.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { addUser, FAST_HASH } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * The layer's own routes (lib/layer-routes/) are served beside whatever routes folder an application brings, so an
 * application that has restlayer as a dependency still has login, health, lookup tables and the OpenAPI document.
 */
describeOneStore("the layer's own routes beside an application's", WHY_ONE_STORE.platform, () => {
  after(removeTempDirs);

  describe('an application whose routes folder holds one route of its own', () => {
    let server: TestServer;
    before(async () => {
      const dir = routeFolder({ 'hello.js': echoRoute('GET', 'hello', 'authenticated: true,') });
      server = await startTestServer({ routesDir: dir, sampleData: false, config: FAST_HASH });
    });
    after(() => server?.stop());

    it('serves its route and the health checks', async () => {
      const hello = await server.call('/hello');
      expect([hello.status, hello.body.result?.where]).to.deep.equal([200, 'hello']);
      const live = await server.call('/health/live', { token: null });
      expect([live.status, live.body.result]).to.deep.equal([200, { status: 'Healthy' }]);
    });

    it('logs in through /auth/jwt and calls its route with the access token', async () => {
      await addUser(server, 'dora', 'a long enough password');
      const login = await server.call('/auth/jwt', { method: 'POST', body: { userName: 'dora', password: 'a long enough password' }, token: null });
      expect(login.status, login.text).to.equal(200);
      const hello = await server.call('/hello', { token: login.body.result.accessToken });
      expect([hello.status, hello.body.result?.user]).to.deep.equal([200, 'dora']);
    });

    it('lists both in its OpenAPI document', async () => {
      const reply = await server.call('/openapi.json', { token: null });
      expect(Object.keys(reply.body.result.paths)).to.include.members(['/hello', '/health/live', '/auth/jwt', '/lookup-table/{type}']);
    });
  });

  it('an application route on a path the layer serves stops startup, naming both files', async () => {
    const dir = routeFolder({ 'health/live.js': echoRoute('GET', 'mine', 'anonymous: true,') });
    const db = join(makeTempDir(), 'never.db');
    const { config } = loadConfig({ env: { NODE_ENV: 'test', Storage__Sqlite__Path: db } });
    let failure: Error | undefined;
    try {
      const running = await startServer({ config, log: createLogger('error', () => {}), port: 0, host: '127.0.0.1', application: { modules: [], routesDir: dir } });
      await running.close();
    } catch (err) {
      failure = err as Error;
    }
    expect(failure?.message).to.include(join('health', 'live.js')).and.include(join(layerRoutesDir, 'health', 'live.js')).and.include('GET /health/live');
  });
});
