import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { expectError, expectOk } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { someProducts, orderWith } from '../sales-order/lines-support.js';
import { history, mergePatch } from './audit-support.js';
import { describeStores } from '../support/stores.js';

/**
 * GET /sales-order/{id}/history and GET /customer/{id}/history (contract part 11): newest first, paged by skip and
 * take; the record's scope applies (404 outside it); a deleted record's history is for holders of `<service>.delete`;
 * an unknown id is a 404.
 */
describeStores('audit: history routes', function () {
  this.timeout(60_000);
  let server: TestServer;
  let orderId: number;
  let productId: number;
  before(async () => {
    server = await startTestServer();
    productId = (await someProducts(server)).active.id;
    orderId = await orderWith(server, [{ productId, orderQty: 1 }]);
    for (let i = 1; i <= 5; i++) {
      expectOk(await server.call(`/sales-order/${orderId}`, { method: 'PATCH', body: { comment: `change ${i}` }, headers: mergePatch }));
    }
  });
  after(() => server.stop());

  const order = () => `/sales-order/${orderId}`;
  const as = (...roles: string[]) => server.token({ sub: `auditor-${roles.join('-')}`, role: roles });

  it('answers newest first, paged by skip and take', async () => {
    const all = await history(server, order());
    expect(all.map((e) => e.operation)).to.deep.equal(['patch', 'patch', 'patch', 'patch', 'patch', 'create']);
    const revisions = all.map((e) => e.changes.find((c) => c.field === 'revisionNumber')?.new);
    expect(revisions).to.deep.equal([6, 5, 4, 3, 2, 1]);
    expect(all.map((e) => Date.parse(e.at))).to.deep.equal(all.map((e) => Date.parse(e.at)).sort((a, b) => b - a));
    expect(await history(server, order(), { skip: 1, take: 2 })).to.deep.equal(all.slice(1, 3));
    expect(await history(server, order(), { skip: 4 })).to.deep.equal(all.slice(4));
    expect(await history(server, order(), { take: 0 })).to.deep.equal([]);
    expect(await history(server, order(), { skip: 6 })).to.deep.equal([]);
  });

  it('refuses a bad page: a negative take, an unknown parameter', async () => {
    expectError(await server.call(`${order()}/history?take=-1`), 400, 'Input_OutOfRange', 'take');
    expectError(await server.call(`${order()}/history?skip=x`), 400, 'Input_InvalidType', 'skip');
    const unknown = await server.call(`${order()}/history?sort=at`);
    expect(unknown.status, unknown.text).to.equal(400);
  });

  it('an unknown id is a 404, for the administrator too', async () => {
    expectError(await server.call('/sales-order/2000000000/history'), 404, 'Entity_NotFound');
    expectError(await server.call('/customer/2000000000/history'), 404, 'Entity_NotFound');
  });

  it('needs <service>.read: a role without it gets 403', async () => {
    const reply = await server.call(`${order()}/history`, { token: as('NoSuchRole') });
    expectError(reply, 403, 'Security_Forbidden');
  });

  it('the record\'s scope applies: a sales person reads the history of their orders and customers, 404 for others', async () => {
    const theirs = await orderWith(server, [{ productId, orderQty: 1 }]);
    const customerId = 11000;
    // Give the order a sales person: as a job would, outside any request (no scope limits it).
    const db = server.infrastructure.storage.db;
    await db.withTables<{ sales_order: { sales_order_id: number; sales_person_id: number | null } }>()
      .updateTable('sales_order').set({ sales_person_id: 279 }).where('sales_order_id', '=', theirs).execute();
    const output = await withErrorScope(() => server.services.users.add({ userName: 'sp279', password: 'sp279-password-1', roles: ['SalesPerson'] }, { salesPersonId: '279' }));
    expect(output.result, JSON.stringify(output.messages)).to.not.equal(undefined);
    const sp = server.token({ sub: 'sp279', role: ['SalesPerson'] });
    expect(await history(server, `/sales-order/${theirs}`, {}, sp)).to.have.length(1);
    expectError(await server.call(`${order()}/history`, { token: sp }), 404, 'Entity_NotFound');
    // Customer 11000 has that order: in scope (a sample customer, written before audit: no entries yet).
    expect(await history(server, `/customer/${customerId}`, {}, sp)).to.deep.equal([]);
    const stranger = expectOk(await server.call('/customer', { method: 'POST', body: { name: 'No orders of 279' } }), 201).result.customerId as number;
    expect(await history(server, `/customer/${stranger}`)).to.have.length(1);
    expectError(await server.call(`/customer/${stranger}/history`, { token: sp }), 404, 'Entity_NotFound');
    // Their writes are audited under their name; a write outside their scope is a 404 and records nothing.
    expectOk(await server.call(`/sales-order/${theirs}`, { method: 'PATCH', token: sp, body: { comment: 'mine' }, headers: mergePatch }));
    expect((await history(server, `/sales-order/${theirs}`))[0]).to.deep.include({ user: 'sp279', operation: 'patch' });
    const entries = (await history(server, order())).length;
    expectError(await server.call(order(), { method: 'PATCH', token: sp, body: { comment: 'not mine' }, headers: mergePatch }), 404, 'Entity_NotFound');
    expect(await history(server, order())).to.have.length(entries);
    // A sales person without the attribute reaches nothing.
    const none = server.token({ sub: 'nobody-in-particular', role: ['SalesPerson'] });
    expectError(await server.call(`/sales-order/${theirs}/history`, { token: none }), 404, 'Entity_NotFound');
    expectError(await server.call(`/customer/${customerId}/history`, { token: none }), 404, 'Entity_NotFound');
  });

  it('a deleted record\'s history is readable with <service>.delete (Clerk), a 404 without it (Viewer)', async () => {
    const gone = await orderWith(server, [{ productId, orderQty: 1 }]);
    expectOk(await server.call(`/sales-order/${gone}`, { method: 'DELETE' }));
    const clerk = await history(server, `/sales-order/${gone}`, {}, as('Clerk'));
    expect(clerk.map((e) => e.operation)).to.deep.equal(['delete', 'create']);
    expectError(await server.call(`/sales-order/${gone}/history`, { token: as('Viewer') }), 404, 'Entity_NotFound');
    // While the record exists, Viewer reads its history like any reader.
    expect(await history(server, order(), { take: 1 }, as('Viewer'))).to.have.length(1);
  });
});

describeStores('audit: a history page is capped at RestAPI:MaxRows', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ sampleData: false, config: { RestAPI: { MaxRows: 2 } } });
  });
  after(() => server.stop());

  it('take defaults to MaxRows and is cut there, with the Service_MaxRows warning; a take within it has none', async () => {
    const id = expectOk(await server.call('/customer', { method: 'POST', body: { name: 'Capped' } }), 201).result.customerId as number;
    for (const name of ['Capped 1', 'Capped 2']) {
      expectOk(await server.call(`/customer/${id}`, { method: 'PATCH', body: { name }, headers: mergePatch }));
    }
    for (const query of ['', '?take=3']) {
      const reply = await server.call(`/customer/${id}/history${query}`);
      expect(reply.status, reply.text).to.equal(200);
      expect((reply.body.result as { operation: string }[]).map((e) => e.operation)).to.deep.equal(['patch', 'patch']);
      expect(reply.body.messages.map((m) => m.code)).to.deep.equal(['Service_MaxRows']);
    }
    expect(await history(server, `/customer/${id}`, { take: 2 })).to.have.length(2);
    expect(await history(server, `/customer/${id}`, { skip: 2, take: 2 })).to.have.length(1);
  });
});
