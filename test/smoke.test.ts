import { expect } from 'chai';
import { type TestServer, startTestServer } from './support/server.js';
import { WHY_ONE_STORE, describeOneStore } from './support/stores.js';

describeOneStore('smoke: a real server answers the envelope', WHY_ONE_STORE.smoke, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('serves health anonymously', async () => {
    const reply = await server.call('/health/live', { token: null });
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({ result: { status: 'Healthy' }, messages: [] });
  });

  it('lists sales orders for an authenticated caller', async () => {
    const reply = await server.call('/sales-order?take=3&getTotalCount=true');
    expect(reply.status).to.equal(200);
    expect(reply.body.result).to.have.length(3);
    expect(reply.body.totalCount).to.be.at.least(10_000);
  });
});
