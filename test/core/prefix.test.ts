import { expect } from 'chai';
import { callOrigin, expectError, expectOk, newOrderData } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { salesDb } from '../support/sales-db.js';
import { describeStores } from '../support/stores.js';

describeStores('RestAPI:Path prefix on (/api)', () => {
  let server: TestServer;
  const auth = () => ({ Authorization: `Bearer ${server.token()}` });
  before(async () => {
    server = await startTestServer({ config: { RestAPI: { Path: '/api' } } });
  });
  after(() => server.stop());

  it('serves the routes under the prefix', async () => {
    expect(server.url).to.match(/\/api$/);
    const reply = await callOrigin(server, '/api/sales-order/43659', { headers: auth() });
    expectOk(reply);
    expect(reply.body.result.salesOrderNumber).to.equal('SO43659');
    expectOk(await callOrigin(server, '/api/lookup-table/sales-order-status', { headers: auth() }));
  });

  it('answers 404 Route_NotFound envelopes outside the prefix', async () => {
    for (const path of ['/sales-order/43659', '/lookup-table/operators', '/health/live', '/health/ready', '/', '/api', '/apix/sales-order']) {
      expectError(await callOrigin(server, path, { headers: auth() }), 404, 'Route_NotFound');
    }
  });

  it('serves health anonymously under the prefix only', async () => {
    for (const path of ['/api/health/live', '/api/health/ready']) {
      const reply = await callOrigin(server, path);
      expectOk(reply);
      expect(reply.body.result).to.deep.equal({ status: 'Healthy' });
    }
  });

  it('answers 201 with a Location that includes the prefix and GETs the new order', async () => {
    const reply = await server.call('/sales-order', { method: 'POST', body: newOrderData({ comment: 'prefixed' }) });
    expectOk(reply, 201);
    const location = reply.headers.get('Location')!;
    expect(location).to.equal(`/api/sales-order/${reply.body.result.salesOrderId}`);
    const read = await callOrigin(server, location, { headers: auth() });
    expectOk(read);
    expect(read.body.result.comment).to.equal('prefixed');
  });

  it('answers 405 with Allow under the prefix', async () => {
    const reply = await callOrigin(server, '/api/sales-order', { method: 'PATCH', headers: auth() });
    expectError(reply, 405, 'Route_MethodNotAllowed');
    expect(reply.headers.get('Allow')).to.contain('POST');
  });
});

describeStores('RestAPI:Path prefix off (default)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ sampleData: false });
  });
  after(() => server.stop());

  it('serves the routes at the root and nothing under /api', async () => {
    expect(new URL(server.url).pathname).to.equal('/');
    expectOk(await callOrigin(server, '/health/live'));
    expectError(await callOrigin(server, '/api/health/live'), 404, 'Route_NotFound');
    expectError(await server.call('/api/sales-order'), 404, 'Route_NotFound');
  });

  it('answers Location without a prefix', async () => {
    // Without sample data there is no customer, so the create is refused: make one through storage first.
    await salesDb(server.infrastructure.storage).insertInto('customer').values({ customer_id: 1, name: 'Solo Customer', account_number: 'AW1', territory_id: 1 }).execute();
    const reply = await server.call('/sales-order', { method: 'POST', body: newOrderData({ customerId: 1 }) });
    expectOk(reply, 201);
    expect(reply.headers.get('Location')).to.equal(`/sales-order/${reply.body.result.salesOrderId}`);
    expectOk(await server.call(reply.headers.get('Location')!));
  });
});
