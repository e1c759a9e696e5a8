import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { expectError, expectOk } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { testProvider } from '../support/test-stores.js';

/**
 * Contract part 13 for customers, over HTTP: a delete marks the customer deleted; reads, writes, lists, counts,
 * cursors, history and references skip it; its account number is free; `?deleted=true` and the restore route for
 * holders of customer.delete, with the restore's 409 and 404.
 */
describeStores(`customers: soft delete and restore (${testProvider})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let viewer: string;
  before(async () => {
    server = await startTestServer();
    viewer = server.token({ sub: 'vera', role: ['Viewer'] });
  });
  after(async () => server?.stop());

  const fresh = (tag: string) => `${tag}${randomBytes(4).toString('hex')}`;
  const create = async (accountNumber?: string, name = 'Soft Delete Test') => {
    const reply = await server.call('/customer', { method: 'POST', body: { name, ...(accountNumber ? { accountNumber } : {}) } });
    expectOk(reply, 201);
    return reply.body.result.customerId as number;
  };
  const remove = (id: number) => server.call(`/customer/${id}`, { method: 'DELETE' });
  const restore = (id: number, token?: string) => server.call(`/customer/${id}/restore`, { method: 'POST', ...(token ? { token } : {}) });
  const listed = async (query: string, token?: string) => {
    const reply = await server.call(`/customer?${query}&getTotalCount=true`, token ? { token } : {});
    expectOk(reply);
    return { ids: (reply.body.result as { customerId: number }[]).map((c) => c.customerId), total: reply.body.totalCount };
  };

  it('a deleted customer is a 404 for reads and writes, and in no list or count; deleted=true lists it', async () => {
    const name = fresh('SoftDel ');
    const [kept, gone] = [await create(undefined, name), await create(undefined, name)];
    expectOk(await remove(gone));
    expectError(await server.call(`/customer/${gone}`), 404, 'Entity_NotFound');
    expectError(await server.call(`/customer/${gone}`, { method: 'PUT', body: { name } }), 404, 'Entity_NotFound');
    expectError(await server.call(`/customer/${gone}`, { method: 'PATCH', body: { name }, headers: { 'Content-Type': 'application/merge-patch+json' } }), 404, 'Entity_NotFound');
    expectError(await remove(gone), 404, 'Entity_NotFound');
    expect(await listed(`name=${encodeURIComponent(name)}`)).to.deep.equal({ ids: [kept], total: 1 });
    expect(await listed(`name=${encodeURIComponent(name)}&deleted=false`)).to.deep.equal({ ids: [kept], total: 1 });
    expect(await listed(`name=${encodeURIComponent(name)}&deleted=true`)).to.deep.equal({ ids: [gone], total: 1 });
    // The same criteria, sorting and paging: a sort and a cursor's pages over the deleted ones only.
    expect(await listed(`name.operator=SW&name=${encodeURIComponent(name)}&deleted=TRUE&sort[0].fieldName=customerId&sort[0].sortDirection=Descending`))
      .to.deep.equal({ ids: [gone], total: 1 });
  });

  it('the deleted list pages by cursor through deleted customers only', async () => {
    const name = fresh('SoftCur ');
    const ids = [await create(undefined, name), await create(undefined, name), await create(undefined, name), await create(undefined, name)];
    for (const id of ids.slice(0, 3)) expectOk(await remove(id));
    const seen: number[] = [];
    let cursor = '';
    for (let page = 0; page < 5; page++) {
      const reply = await server.call(`/customer?name=${encodeURIComponent(name)}&deleted=true&take=2&cursor=${encodeURIComponent(cursor)}`);
      expectOk(reply);
      seen.push(...(reply.body.result as { customerId: number }[]).map((c) => c.customerId));
      cursor = (reply.body as { nextCursor?: string }).nextCursor ?? '';
      if (!cursor) break;
    }
    expect(seen).to.deep.equal(ids.slice(0, 3));
  });

  it('deleted=true and the restore route need customer.delete (403 without it)', async () => {
    const id = await create();
    expectOk(await remove(id));
    expectError(await server.call('/customer?deleted=true', { token: viewer }), 403, 'Security_Forbidden');
    expectError(await restore(id, viewer), 403, 'Security_Forbidden');
    expectError(await server.call(`/customer/${id}`, { token: viewer }), 404, 'Entity_NotFound');
  });

  it('a restore answers the new revision and brings the customer back; a customer not deleted (or unknown) is a 404', async () => {
    const accountNumber = fresh('SR');
    const id = await create(accountNumber);
    expectError(await restore(id), 404, 'Entity_NotFound');
    expectError(await restore(2_000_000_000), 404, 'Entity_NotFound');
    const before = (await server.call(`/customer/${id}`)).body.result.revisionNumber as number;
    expectOk(await remove(id));
    const reply = await restore(id);
    expectOk(reply);
    expect(reply.body.result.revisionNumber).to.equal(before + 2);
    expect(Date.parse(reply.body.result.modifiedDate as string)).to.be.a('number').and.not.NaN;
    const read = expectOk(await server.call(`/customer/${id}`)).result as Record<string, unknown>;
    expect(read).to.deep.include({ customerId: id, accountNumber, revisionNumber: before + 2 });
    expect(await listed(`accountNumber=${accountNumber}&deleted=true`)).to.deep.equal({ ids: [], total: 0 });
    expect(await listed(`accountNumber=${accountNumber}`)).to.deep.equal({ ids: [id], total: 1 });
    expectError(await restore(id), 404, 'Entity_NotFound');
  });

  it('a deleted customer\'s account number is free; restoring it while taken is a 409 on accountNumber and it stays deleted', async () => {
    const accountNumber = fresh('SU');
    const first = await create(accountNumber);
    expectError(await server.call('/customer', { method: 'POST', body: { name: 'Twin', accountNumber: accountNumber.toLowerCase() } }), 409, 'Entity_Duplicate', 'accountNumber');
    expectOk(await remove(first));
    const second = await create(accountNumber.toLowerCase());
    const refused = expectError(await restore(first), 409, 'Entity_Duplicate', 'accountNumber');
    expect(refused.type).to.equal('Concurrency');
    expect(await listed(`accountNumber=${accountNumber}&deleted=true`)).to.deep.equal({ ids: [first], total: 1 });
    expectError(await server.call(`/customer/${first}`), 404, 'Entity_NotFound');
    // An update to a deleted customer's account number is no duplicate either.
    const third = await create();
    expectOk(await remove(second));
    expectOk(await server.call(`/customer/${third}`, { method: 'PUT', body: { name: 'Third', accountNumber } }));
    expectError(await restore(first), 409, 'Entity_Duplicate', 'accountNumber');
    expectOk(await server.call(`/customer/${third}`, { method: 'PUT', body: { name: 'Third' } }));
    expectOk(await restore(first));
  });

  it('history records delete and restore; a deleted customer\'s history is for holders of customer.delete only', async () => {
    const id = await create(fresh('SH'));
    expectOk(await remove(id));
    expectError(await server.call(`/customer/${id}/history`, { token: viewer }), 404, 'Entity_NotFound');
    const deleted = expectOk(await server.call(`/customer/${id}/history`)).result as { operation: string }[];
    expect(deleted.map((e) => e.operation)).to.deep.equal(['delete', 'create']);
    expectOk(await restore(id));
    const restored = expectOk(await server.call(`/customer/${id}/history`, { token: viewer })).result as { operation: string; changes: unknown[] }[];
    expect(restored.map((e) => e.operation)).to.deep.equal(['restore', 'delete', 'create']);
  });

  it('a deleted customer is an unknown one to an order\'s customerId; one that orders not deleted refer to is a 409 Entity_InUse', async () => {
    const id = await create();
    expectOk(await remove(id));
    expectError(await server.call('/sales-order', { method: 'POST', body: { customerId: id, status: 1, onlineOrderFlag: true } }), 400, 'SalesOrder_UnknownCustomer', 'customerId');
    expectOk(await restore(id));
    const order = await server.call('/sales-order', { method: 'POST', body: { customerId: id, status: 1, onlineOrderFlag: true } });
    expectOk(order, 201);
    expectError(await remove(id), 409, 'Entity_InUse');
    expectOk(await server.call(`/sales-order/${order.body.result.salesOrderId}`, { method: 'DELETE' }));
    expectOk(await remove(id));
  });
});
