import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { type TestServer, startTestServer } from '../support/server.js';

const routeModule = new URL('../../lib/routing/route.js', import.meta.url).href;

/** A routes folder with one route whose operation throws a defect. */
function throwingRoutes(): string {
  const dir = mkdtempSync(join(tmpdir(), 'restlayer-routes-'));
  writeFileSync(join(dir, 'boom.js'), `
    import { route } from '${routeModule}';
    export const GET = route({ summary: 'throws', handle: async () => { throw new TypeError('secret internals at db.query(users)'); } });
  `);
  return dir;
}

describe('unhandled exceptions', () => {
  let routes: string;
  let production: TestServer;
  let development: TestServer;
  before(async () => {
    routes = throwingRoutes();
    production = await startTestServer({
      routesDir: routes,
      env: { NODE_ENV: 'production', AuthConfig__SigningKey: randomBytes(32).toString('base64') },
    });
    development = await startTestServer({ routesDir: routes });
  });
  after(async () => {
    await production.stop();
    await development.stop();
    rmSync(routes, { recursive: true, force: true });
  });

  it('answer 500 Exception_Unhandled with the generic text in production, and log the same request id', async () => {
    const reply = await production.call('/boom', { headers: { 'X-Request-Id': 'req-boom-1' } });
    expect(reply.status).to.equal(500);
    expect(reply.headers.get('X-Request-Id')).to.equal('req-boom-1');
    expect(reply.body).to.deep.equal({
      messages: [{
        code: 'Exception_Unhandled',
        message: 'Unexpected server error occurred. Please contact your system administrator.',
        severity: 'Error',
        type: 'System',
      }],
    });
    const logged = production.logs.filter((l) => l.level === 'error' && l.requestId === 'req-boom-1');
    expect(logged).to.have.length(1);
    expect(String(logged[0].error)).to.contain('secret internals');
  });

  it('never carry a stack trace, even outside production', async () => {
    const reply = await development.call('/boom');
    expect(reply.status).to.equal(500);
    expect(reply.body.messages[0].code).to.equal('Exception_Unhandled');
    expect(reply.text).not.to.match(/\bat .+:\d+:\d+/);
    expect(reply.text).not.to.contain('.js');
  });

});

describe('readiness', () => {
  it('answers 503 in the envelope while the store is unreachable', async () => {
    const server = await startTestServer({ sampleData: false });
    try {
      const ready = await server.call('/health/ready', { token: null });
      expect(ready.status).to.equal(200);
      expect(ready.body.result).to.deep.equal({ status: 'Healthy' });
      await server.services.storage.close();
      const reply = await server.call('/health/ready', { token: null });
      expect(reply.status).to.equal(503);
      expect(reply.body.messages[0]).to.deep.include({ code: 'Health_NotReady', severity: 'Error' });
      expect((await server.call('/health/live', { token: null })).status).to.equal(200);
    } finally {
      await server.stop();
    }
  });
});
