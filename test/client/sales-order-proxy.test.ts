import { expect } from 'chai';
import { LookupProxy, OperationNotSupportedError, type RestClient, SessionExpiredError } from 'restlayer/client';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { clientFor, recordingFetch } from './support.js';
import { describeStores } from '../support/stores.js';

const codes = (output: { messages: { code: string }[] }) => output.messages.map((m) => m.code);

/** Every operation of ISalesOrderService through the proxy, against a real server, checking the typed results. */
function everyOperation(context: () => { proxy: SalesOrderProxy; recorder: ReturnType<typeof recordingFetch> }) {
  it('read: the order with Date properties', async () => {
    const { proxy } = context();
    const output = await proxy.read(43659);
    expect(output.messages).to.deep.equal([]);
    const order = output.result!;
    expect(order.salesOrderId).to.equal(43659);
    expect(order.orderDate).to.be.instanceOf(Date);
    expect(order.dueDate).to.be.instanceOf(Date);
    expect(order.modifiedDate).to.be.instanceOf(Date);
    expect(order.revisionNumber).to.be.a('number');
    expect(order.onlineOrderFlag).to.be.a('boolean');
  });

  it('read: a missing order is an Output with Entity_NotFound (no throw)', async () => {
    const output = await context().proxy.read(999_999_999);
    expect(output.result).to.equal(undefined);
    expect(codes(output)).to.deep.equal(['Entity_NotFound']);
    expect(output.messages[0].message).to.equal('Sales order with id 999999999 not found.');
  });

  it('readList: criteria in the query string, paging, total count and sorting', async () => {
    const { proxy, recorder } = context();
    const from = new Date('2023-01-01T00:00:00Z');
    const output = await proxy.readList({
      status: { operator: 'In', values: [1, 5] },
      orderDate: { operator: 'GE', values: [from] },
      take: 7, skip: 3, getTotalCount: true,
      sort: [{ fieldName: 'orderDate', sortDirection: 'Descending' }],
    });
    expect(codes(output)).to.deep.equal([]);
    const items = output.result!;
    expect(items).to.have.length(7);
    expect(output.totalCount).to.be.a('number').greaterThan(7);
    for (const item of items) {
      expect([1, 5]).to.include(item.status);
      expect(item.orderDate).to.be.instanceOf(Date);
      expect(item.orderDate.getTime()).to.be.at.least(from.getTime());
    }
    expect(items.map((i) => i.orderDate.getTime())).to.deep.equal(items.map((i) => i.orderDate.getTime()).sort((a, b) => b - a));
    const sent = recorder.to('/sales-order').at(-1)!;
    expect(sent.method).to.equal('GET');
    expect(sent.url.searchParams.getAll('status')).to.deep.equal(['1', '5']);
  });

  it('readList: pages forward with cursor and nextCursor, as skip and take page', async () => {
    const { proxy, recorder } = context();
    const criteria = { status: { operator: 'EQ' as const, values: [5] }, sort: [{ fieldName: 'orderDate' as const, sortDirection: 'Descending' as const }] };
    const byOffset = await proxy.readList({ ...criteria, take: 9 });
    const ids: number[] = [];
    let cursor = '';
    for (let page = 0; page < 3; page++) {
      const output = await proxy.readList({ ...criteria, take: 3, cursor });
      expect(codes(output)).to.deep.equal([]);
      expect(output.nextCursor).to.be.a('string');
      ids.push(...output.result!.map((o) => o.salesOrderId));
      cursor = output.nextCursor!;
    }
    expect(ids).to.deep.equal(byOffset.result!.map((o) => o.salesOrderId));
    expect(recorder.to('/sales-order').at(-1)!.url.searchParams.get('cursor')).to.be.a('string').with.length.greaterThan(10);
    const refused = await proxy.readList({ ...criteria, sort: [], cursor });
    expect(refused.messages.map((m) => [m.code, m.property])).to.deep.equal([['Input_InvalidCursor', 'cursor']]);
  });

  it('readList: a criterion the server refuses comes back as messages with their property', async () => {
    const output = await context().proxy.readList({ customerName: { operator: 'BW', values: ['a'] }, take: -1 });
    expect(output.result).to.equal(undefined);
    expect(output.messages.map((m) => [m.code, m.property])).to.have.deep.members([['Criteria_ValueCount', 'customerName'], ['Input_OutOfRange', 'take']]);
  });

  let created: { id: number; revision: number };

  it('create: POST answers the new order (201), dates revived', async () => {
    const { proxy, recorder } = context();
    const dueDate = new Date('2030-06-15T00:00:00Z');
    const output = await proxy.create({ customerId: 11000, status: 1, onlineOrderFlag: true, dueDate, comment: 'made by the client tests', purchaseOrderNumber: 'PO-CLIENT' });
    expect(codes(output)).to.deep.equal([]);
    expect(output.result!.salesOrderId).to.be.a('number');
    expect(output.result!.modifiedDate).to.be.instanceOf(Date);
    expect(recorder.to('/sales-order').at(-1)!.status).to.equal(201);
    created = { id: output.result!.salesOrderId, revision: output.result!.revisionNumber };
    const read = (await proxy.read(created.id)).result!;
    expect(read.dueDate.toISOString()).to.equal(dueDate.toISOString());
    expect(read.comment).to.equal('made by the client tests');
    expect(read.purchaseOrderNumber).to.equal('PO-CLIENT');
  });

  it('create: every invalid field is reported with its property', async () => {
    const output = await context().proxy.create({ customerId: 11000, status: 1, onlineOrderFlag: true, comment: 'x'.repeat(200), accountNumber: 'y'.repeat(40) });
    expect(output.result).to.equal(undefined);
    expect(output.messages.map((m) => [m.code, m.property])).to.have.deep.members([['Input_TooLong', 'comment'], ['Input_TooLong', 'accountNumber']]);
  });

  it('update: PUT answers the new revision; a stale revision is an Output with Entity_Concurrency', async () => {
    const { proxy } = context();
    const shipDate = new Date('2030-06-20T12:00:00Z');
    const output = await proxy.update(created.id, { status: 5, onlineOrderFlag: false, shipDate, revisionNumber: created.revision, comment: null });
    expect(codes(output)).to.deep.equal([]);
    expect(output.result!.revisionNumber).to.equal(created.revision + 1);
    expect(output.result!.modifiedDate).to.be.instanceOf(Date);
    const read = (await proxy.read(created.id)).result!;
    expect(read.status).to.equal(5);
    expect(read.shipDate!.toISOString()).to.equal(shipDate.toISOString());
    expect(read.comment).to.equal(undefined);
    const stale = await proxy.update(created.id, { status: 2, onlineOrderFlag: false, revisionNumber: created.revision });
    expect(stale.result).to.equal(undefined);
    expect(codes(stale)).to.deep.equal(['Entity_Concurrency']);
  });

  it('patch: PATCH sends a merge patch that changes only the fields it names; null clears', async () => {
    const { proxy, recorder } = context();
    const before = (await proxy.read(created.id)).result!;
    const output = await proxy.patch(created.id, { comment: 'patched through the proxy', shipDate: null });
    expect(codes(output)).to.deep.equal([]);
    expect(recorder.sent.at(-1)!.method).to.equal('PATCH');
    expect(recorder.sent.at(-1)!.headers.get('Content-Type')).to.equal('application/merge-patch+json');
    expect(output.result!.revisionNumber).to.equal(before.revisionNumber + 1);
    const after = (await proxy.read(created.id)).result!;
    expect(after.comment).to.equal('patched through the proxy');
    expect(after.shipDate).to.equal(undefined);
    expect(after.status).to.equal(before.status);
    expect(after.onlineOrderFlag).to.equal(before.onlineOrderFlag);
  });

  it('delete: the order is gone', async () => {
    const { proxy } = context();
    expect((await proxy.delete(created.id)).messages).to.deep.equal([]);
    expect(codes(await proxy.read(created.id))).to.deep.equal(['Entity_NotFound']);
    expect(codes(await proxy.delete(created.id))).to.deep.equal(['Entity_NotFound']);
  });

  it('purgeCancelled: not exposed via REST, rejects without calling the server', async () => {
    const { proxy, recorder } = context();
    const before = recorder.sent.length;
    const error = await proxy.purgeCancelled(new Date()).then(() => expect.fail('resolved'), (e: unknown) => e);
    expect(error).to.be.instanceOf(OperationNotSupportedError);
    expect((error as Error).message).to.equal('Operation ISalesOrderService.purgeCancelled is not exposed via REST.');
    expect(recorder.sent.length).to.equal(before);
  });
}

describeStores('client: ISalesOrderService through the proxy', () => {
  describe('bearer tokens, variant A', () => {
    let server: TestServer;
    let client: RestClient;
    let proxy: SalesOrderProxy;
    const recorder = recordingFetch();
    before(async () => {
      server = await startTestServer({ config: FAST_HASH });
      await addUser(server, 'ann', 'ann-password-1', ['Clerk', 'Administrator']);
      client = clientFor(server, { Authorization: true }, { fetch: recorder.fetch });
      proxy = new SalesOrderProxy(client);
      const login = await client.login('ann', 'ann-password-1');
      expect(login.messages).to.deep.equal([]);
    });
    after(() => server.stop());

    it('logs in at /auth/jwt and sends the access token as a bearer token', async () => {
      expect(recorder.to('/auth/jwt')).to.have.length(1);
      await proxy.read(43659);
      const sent = recorder.to('/sales-order/43659').at(-1)!;
      expect(sent.headers.get('Authorization')).to.equal(`Bearer ${client.tokens!.tokens!.accessToken}`);
      expect(client.tokens!.tokens!.refreshToken).to.be.a('string');
    });

    everyOperation(() => ({ proxy, recorder }));

    it('a wrong password is an Output with Login_InvalidCredentials, not a session error', async () => {
      const other = clientFor(server);
      let events = 0;
      other.onSessionExpired(() => events++);
      const login = await other.login('ann', 'wrong-password');
      expect(codes(login)).to.deep.equal(['Login_InvalidCredentials']);
      expect(events).to.equal(0);
    });

    it('logout ends the login session on the server: its tokens stop working', async () => {
      const other = clientFor(server);
      await other.login('ann', 'ann-password-1');
      const { accessToken } = other.tokens!.tokens!;
      expect((await other.logout()).messages).to.deep.equal([]);
      expect(other.tokens!.tokens).to.equal(undefined);
      expect((await server.call('/sales-order/43659', { token: accessToken })).status).to.equal(401);
      const error = await new SalesOrderProxy(other).read(43659).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(SessionExpiredError);
    });

    describe('ILookupService through its proxy', () => {
      it('reads a table, then gets 304 for it and answers the kept table', async () => {
        const lookup = new LookupProxy(client);
        const first = await lookup.read('sales-order-status');
        expect(first.messages).to.deep.equal([]);
        expect(first.result!.table.data.map((d) => d.text)).to.include.members(['In process', 'Shipped', 'Cancelled']);
        expect(first.result!.etag).to.match(/^"/);
        const second = await lookup.read('Sales-Order-Status');
        expect(recorder.to('/lookup-table/Sales-Order-Status').at(-1)!.status).to.equal(304);
        expect(second.result).to.deep.equal(first.result);
      });

      it('an unknown table is an Output with LookupTable_NotFound; remove and removeAll answer the envelope', async () => {
        const lookup = new LookupProxy(client);
        expect(codes(await lookup.read('nope'))).to.deep.equal(['LookupTable_NotFound']);
        expect((await lookup.remove('sales-territory')).messages).to.deep.equal([]);
        expect((await lookup.removeAll()).messages).to.deep.equal([]);
        expect(codes(await lookup.remove('nope'))).to.deep.equal(['LookupTable_NotFound']);
        expect((await lookup.read('sales-territory')).result!.table.data.length).to.be.greaterThan(0);
      });
    });
  });

  describe('bearer tokens, variant B', () => {
    let server: TestServer;
    let proxy: SalesOrderProxy;
    const recorder = recordingFetch();
    before(async () => {
      server = await startTestServer({ config: { Authentication: { ...FAST_HASH.Authentication, Variant: 'B' } } });
      await addUser(server, 'bea', 'bea-password-1');
      const client = clientFor(server, { Authorization: true }, { fetch: recorder.fetch, variant: 'B' });
      proxy = new SalesOrderProxy(client);
      const login = await client.login('bea', 'bea-password-1');
      expect(login.messages).to.deep.equal([]);
      expect(client.tokens!.tokens!.refreshToken).to.equal(undefined);
    });
    after(() => server.stop());

    it('logs in at /authentication and sends the JWT as a bearer token', () => {
      expect(recorder.to('/authentication')).to.have.length(1);
    });

    everyOperation(() => ({ proxy, recorder }));
  });

  describe('cookie login (Authorization false)', () => {
    let server: TestServer;
    let proxy: SalesOrderProxy;
    const recorder = recordingFetch();
    before(async () => {
      server = await startTestServer({ config: FAST_HASH });
      await addUser(server, 'cid', 'cid-password-1');
      const client = clientFor(server, { Authorization: false }, { fetch: recorder.fetch });
      proxy = new SalesOrderProxy(client);
      const login = await client.login('cid', 'cid-password-1');
      expect(login.result).to.deep.include({ userName: 'cid', authenticationType: 'Cookies' });
    });
    after(() => server.stop());

    everyOperation(() => ({ proxy, recorder }));

    it('sent the session cookie with every call, never a bearer token, and Origin with every change', () => {
      const calls = recorder.sent.filter((s) => s.url.pathname.startsWith('/sales-order'));
      expect(calls.length).to.be.greaterThan(10);
      for (const sent of calls) {
        expect(sent.headers.get('Cookie'), sent.url.pathname).to.match(/restlayer\.sid=/);
        expect(sent.headers.has('Authorization')).to.equal(false);
        if (sent.method !== 'GET') expect(sent.headers.get('Origin')).to.equal(`http://127.0.0.1:${server.port}`);
      }
      expect(calls.some((s) => s.method === 'PUT' && s.status === 200)).to.equal(true);
    });

    it('needs that Origin: the same cookie without it is refused (Security_CsrfRejected)', async () => {
      const login = await server.call('/auth/cookie', { method: 'POST', token: null, body: { userName: 'cid', password: 'cid-password-1' } });
      const reply = await server.call('/sales-order/43659', {
        method: 'PUT', token: null, headers: { Cookie: cookieHeader(login.headers) }, body: { status: 1, onlineOrderFlag: false },
      });
      expect(reply.status).to.equal(403);
      expect(reply.body.messages[0].code).to.equal('Security_CsrfRejected');
    });
  });
});
