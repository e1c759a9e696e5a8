import { expect } from 'chai';
import { type CallInit, type Reply, type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { expectNotFound, listOf, scopedUser } from './support.js';
import { describeStores } from '../support/stores.js';

/** The sample's SalesPerson grants, plus creating their own orders (issue 37's configuration). */
const SALES_PERSON = ['sales-order.read:own', 'sales-order.update:own', 'customer.read:own', 'sales-order.create:own'];

/**
 * Issue 37 finding 2 (contract part 10): a reference to another record (an order's customerId) is resolved with the
 * caller's read permission on that record's service and its scope. A customer outside it answers exactly as an
 * unknown one (status, codes, texts, properties), so the answer tells nothing of which customer ids exist, and the
 * create writes nothing: the customer does not join the caller's scope.
 */
describeStores(`record scopes: a reference resolves within the caller's scope (${testProvider})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let sam: string;
  let otto: string;
  /** A customer of sam's orders, one outside sam's scope, and an id no customer has. */
  let inScope: number;
  let outside: number;
  let unknown: number;
  const me = 279;

  const as = (token: string) => (path: string, init: CallInit = {}) => server.call(path, { ...init, token });
  const orderCount = async () => listOf(await server.call('/sales-order?take=0&getTotalCount=true')).totalCount!;
  const newOrder = (customerId: number, extra: Record<string, unknown> = {}) =>
    ({ customerId, status: 1, onlineOrderFlag: false, lines: [{ productId: 707, orderQty: 2 }], ...extra });

  /** The answer as a client sees it, with `id` written as <id>: what must not differ between an unknown id and one out of scope. */
  const seen = (reply: Reply, id: number) => ({
    status: reply.status,
    contentType: reply.headers.get('content-type'),
    contentLanguage: reply.headers.get('content-language'),
    body: reply.text.replaceAll(String(id), '<id>'),
  });

  before(async () => {
    server = await startTestServer({
      logLevel: 'error',
      config: { Authorization: { Roles: { SalesPerson: SALES_PERSON, OrderEntry: ['sales-order.create', 'sales-order.read'] } } },
    });
    sam = await scopedUser(server, 'sam', ['SalesPerson'], { salesPersonId: String(me) });
    otto = await scopedUser(server, 'otto', ['OrderEntry']);
    inScope = listOf<{ customerId: number }>(await as(sam)('/customer?take=1')).items[0].customerId;
    const candidates = listOf<{ customerId: number }>(await server.call('/customer?take=100&sort[0].fieldName=name&sort[0].sortDirection=Descending')).items;
    for (const c of candidates) {
      if ((await as(sam)(`/customer/${c.customerId}`)).status === 404) {
        outside = c.customerId;
        break;
      }
    }
    expect(outside, 'a customer outside the scope').to.be.a('number');
    const last = listOf<{ customerId: number }>(await server.call('/customer?take=1&sort[0].fieldName=customerId&sort[0].sortDirection=Descending')).items[0];
    unknown = last.customerId + 1_000;
    expectNotFound(await server.call(`/customer/${unknown}`), 'the unknown customer, for the administrator');
  });
  after(() => server?.stop());

  it('a SalesPerson\'s order for a customer outside their scope answers as for an unknown customer, byte for byte, and writes nothing', async () => {
    const orders = await orderCount();
    const forUnknown = await as(sam)('/sales-order', { method: 'POST', body: newOrder(unknown) });
    expect(forUnknown.status, forUnknown.text).to.equal(400);
    expect(forUnknown.body.messages.map((m) => [m.code, m.property])).to.deep.equal([['SalesOrder_UnknownCustomer', 'customerId']]);
    const forOutside = await as(sam)('/sales-order', { method: 'POST', body: newOrder(outside) });
    expect(seen(forOutside, outside)).to.deep.equal(seen(forUnknown, unknown));
    expect(await orderCount()).to.equal(orders);
    // The customer did not join the caller's scope: neither it nor its history exists for them.
    expectNotFound(await as(sam)(`/customer/${outside}`), 'the customer outside the scope, after the refused create');
    expectNotFound(await as(sam)(`/customer/${outside}/history`), 'its history');
  });

  it('with other problems in the body, every problem is reported and the two answers are still the same', async () => {
    const body = (customerId: number) => newOrder(customerId, { status: 99, lines: [{ productId: 999_999, orderQty: 1 }] });
    const forUnknown = await as(sam)('/sales-order', { method: 'POST', body: body(unknown) });
    expect(forUnknown.body.messages.map((m) => m.code)).to.have.members(['SalesOrder_UnknownCustomer', 'SalesOrder_InvalidStatus', 'SalesOrder_InvalidProduct']);
    const forOutside = await as(sam)('/sales-order', { method: 'POST', body: body(outside) });
    expect(seen(forOutside, outside)).to.deep.equal(seen(forUnknown, unknown));
  });

  it('the same caller\'s order for a customer of their own orders is created, and is theirs', async () => {
    const created = await as(sam)('/sales-order', { method: 'POST', body: newOrder(inScope) });
    expect(created.status, created.text).to.equal(201);
    const id = (created.body.result as { salesOrderId: number }).salesOrderId;
    const read = await as(sam)(`/sales-order/${id}`);
    expect(read.body.result).to.include({ customerId: inScope, salesPersonId: me });
  });

  it('a caller who may create orders but not read customers resolves no customer: every one answers as unknown', async () => {
    const orders = await orderCount();
    const forUnknown = await as(otto)('/sales-order', { method: 'POST', body: newOrder(unknown) });
    expect(forUnknown.status, forUnknown.text).to.equal(400);
    const forExisting = await as(otto)('/sales-order', { method: 'POST', body: newOrder(inScope) });
    expect(seen(forExisting, inScope)).to.deep.equal(seen(forUnknown, unknown));
    expect(await orderCount()).to.equal(orders);
  });

  it('an unlimited caller (the administrator) still creates orders for any customer', async () => {
    const created = await server.call('/sales-order', { method: 'POST', body: newOrder(outside) });
    expect(created.status, created.text).to.equal(201);
    const id = (created.body.result as { salesOrderId: number }).salesOrderId;
    expect((await server.call(`/sales-order/${id}`, { method: 'DELETE' })).status).to.equal(200);
  });
});
