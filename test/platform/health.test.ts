import { expect } from 'chai';
import { type TestServer, startTestServer } from '../support/server.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

describeOneStore('health checks (contract part 8)', WHY_ONE_STORE.platform, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ sampleData: false, config: { RestAPI: { Path: '/api' } } });
  });
  after(() => server?.stop());

  it('live and ready answer anonymously under the prefix, and not outside it', async () => {
    for (const path of ['/health/live', '/health/ready']) {
      const reply = await server.call(path, { token: null });
      expect(reply.status, path).to.equal(200);
      expect(reply.body, path).to.deep.equal({ result: { status: 'Healthy' }, messages: [] });
      const outside = await fetch(server.url.replace(/\/api$/, '') + path);
      expect(outside.status, `${path} without the prefix`).to.equal(404);
    }
  });

  it('ready answers 503 while the database is unreachable; live still answers 200', async () => {
    await server.infrastructure.storage.close();
    const ready = await server.call('/health/ready', { token: null });
    expect(ready.status, ready.text).to.equal(503);
    expect(ready.body.messages.map((m) => m.code)).to.deep.equal(['Health_NotReady']);
    expect(ready.body).to.not.have.property('result');
    const live = await server.call('/health/live', { token: null });
    expect(live.status).to.equal(200);
  });
});
