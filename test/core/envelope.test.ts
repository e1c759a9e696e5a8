import { expect } from 'chai';
import { expectError, expectNoNullProperties, expectOk, probeRoutesDir, propertyNames } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const camelCase = /^[a-z][A-Za-z0-9]*$/;
const messageKeys = ['code', 'message', 'severity', 'type'];

describeStores('envelope (contract part 1) on the sales order routes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('answers a success as exactly { result, messages: [] }', async () => {
    const reply = await server.call('/sales-order/43659');
    expectOk(reply);
    expect(Object.keys(reply.body)).to.have.members(['result', 'messages']);
    expect(reply.body.result.salesOrderId).to.equal(43659);
    expect(reply.headers.get('Content-Type')).to.match(/^application\/json/);
  });

  it('omits result on an error and still writes messages as an array', async () => {
    const reply = await server.call('/sales-order/1');
    expectError(reply, 404, 'Entity_NotFound');
    expect(Object.keys(reply.body)).to.deep.equal(['messages']);
  });

  it('writes each message with code, message, severity and type only, plus property for input errors', async () => {
    const notFound = await server.call('/sales-order/1');
    expect(Object.keys(notFound.body.messages[0])).to.have.members(messageKeys);
    const invalid = await server.call('/sales-order/abc');
    expect(Object.keys(invalid.body.messages[0])).to.have.members([...messageKeys, 'property']);
    for (const m of [...notFound.body.messages, ...invalid.body.messages]) {
      expect(m.code).to.be.a('string').and.not.empty;
      expect(m.message).to.be.a('string').and.not.empty;
      expect(['Info', 'Warning', 'Error', 'Critical']).to.include(m.severity);
      expect(['Validation', 'Functional', 'Security', 'Data', 'Concurrency', 'External', 'System', 'Message']).to.include(m.type);
    }
  });

  it('never writes null: an order without comment, ship date or sales person has no such keys', async () => {
    // An online, unshipped order: no sales person, no ship date, no purchase order number.
    const list = await server.call('/sales-order?onlineOrderFlag=true&status=1&take=20');
    expectOk(list);
    expect(list.body.result).to.have.length(20);
    expectNoNullProperties(list.text);
    for (const item of list.body.result) {
      expect(item).to.not.have.property('salesPersonId');
      expect(item).to.not.have.property('shipDate');
    }
    const one = await server.call(`/sales-order/${list.body.result[0].salesOrderId}`);
    expectOk(one);
    expectNoNullProperties(one.text);
    expect(one.body.result).to.not.have.property('purchaseOrderNumber');
    expect(one.body.result).to.not.have.property('salesPersonId');
    expect(one.body.result.status).to.equal(1);
  });

  it('writes every response property name in camelCase', async () => {
    const replies = await Promise.all([
      server.call('/sales-order?take=5&getTotalCount=true'),
      server.call('/sales-order/43659'),
      server.call('/lookup-table/sales-territory'),
      server.call('/lookup-table/sales-person'),
      server.call('/sales-order?take=x&skip=y'),
    ]);
    const names = replies.flatMap((r) => propertyNames(r.body));
    expect(names.length).to.be.greaterThan(50);
    for (const name of names) expect(name).to.match(camelCase);
  });

  it('adds totalCount only when the caller asks with getTotalCount=true', async () => {
    const without = await server.call('/sales-order?take=2');
    expect(Object.keys(without.body)).to.have.members(['result', 'messages']);
    const no = await server.call('/sales-order?take=2&getTotalCount=false');
    expect(no.body).to.not.have.property('totalCount');
    const yes = await server.call('/sales-order?take=2&getTotalCount=true');
    expect(yes.body.totalCount).to.equal(12_000);
    const none = await server.call('/sales-order?customerName=Nobody%20Here&getTotalCount=true');
    expect(none.body).to.deep.equal({ result: [], messages: [], totalCount: 0 });
  });

  it('answers an empty list as result [] (an empty array is not null)', async () => {
    const reply = await server.call('/sales-order?customerName=Nobody%20Here');
    expect(reply.body).to.deep.equal({ result: [], messages: [] });
  });

  describe('X-Request-Id', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

    it('is generated, and different, on every response: success, errors, 401, 404, 405, 304', async () => {
      const etag = (await server.call('/lookup-table/operators')).headers.get('ETag')!;
      const replies = await Promise.all([
        server.call('/sales-order/43659'),
        server.call('/sales-order/abc'),
        server.call('/sales-order/1'),
        server.call('/sales-order', { token: null }),
        server.call('/no-such-route'),
        server.call('/sales-order', { method: 'PATCH', body: {} }),
        server.call('/sales-order', { method: 'POST', body: '{', headers: { 'Content-Type': 'application/json' } }),
        server.call('/lookup-table/operators', { headers: { 'If-None-Match': etag } }),
        server.call('/health/live', { token: null }),
      ]);
      expect(replies.map((r) => r.status)).to.deep.equal([200, 400, 404, 401, 404, 405, 400, 304, 200]);
      const ids = replies.map((r) => r.headers.get('X-Request-Id'));
      for (const id of ids) expect(id).to.match(uuid);
      expect(new Set(ids).size).to.equal(ids.length);
    });

    it('echoes the id the caller sent, on success and on errors', async () => {
      for (const [path, status] of [['/sales-order/43659', 200], ['/sales-order/1', 404], ['/nowhere', 404]] as const) {
        const reply = await server.call(path, { headers: { 'X-Request-Id': 'client-req-42' } });
        expect(reply.status).to.equal(status);
        expect(reply.headers.get('X-Request-Id')).to.equal('client-req-42');
      }
      const unauthenticated = await server.call('/sales-order', { token: null, headers: { 'X-Request-Id': 'anon-7' } });
      expect(unauthenticated.status).to.equal(401);
      expect(unauthenticated.headers.get('X-Request-Id')).to.equal('anon-7');
    });
  });
});

describeStores('envelope (contract part 1) rules shown through probe routes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ routesDir: probeRoutesDir, sampleData: false });
  });
  after(() => server.stop());

  it('omits a null result', async () => {
    const reply = await server.call('/probe/null-result');
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({ messages: [] });
  });

  it('leaves out null properties at every depth, keeping array positions and writing dates as ISO 8601', async () => {
    const reply = await server.call('/probe/nulls');
    expect(reply.status).to.equal(200);
    expect(reply.body.result).to.deep.equal({ a: 1, nested: { d: 'x', list: [1, null, { f: 2 }] }, when: '2024-01-02T00:00:00.000Z' });
  });

  it('omits the result when any message is an Error or Critical, keeps it next to a Warning or Info', async () => {
    const error = await server.call('/probe/Functional-Error');
    expect(error.body).to.deep.equal({ messages: [{ code: 'Probe_Functional', message: 'A Functional message.', severity: 'Error', type: 'Functional' }] });
    const critical = await server.call('/probe/Data-Critical-Validation-Info');
    expect(critical.body).to.not.have.property('result');
    expect(critical.body.messages.map((m) => m.severity)).to.deep.equal(['Critical', 'Info']);
    const warning = await server.call('/probe/Validation-Warning-Message-Info');
    expect(warning.status).to.equal(200);
    expect(warning.body.result).to.deep.equal({ ok: true });
    expect(warning.body.messages.map((m) => [m.type, m.severity])).to.deep.equal([['Validation', 'Warning'], ['Message', 'Info']]);
  });
});
