import { expect } from 'chai';
import { expectError, expectOk } from '../support/api.js';
import { scopedUser } from '../access/support.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { whileHeld } from '../support/held-row.js';
import { testProvider } from '../support/test-stores.js';

interface Line { salesOrderDetailId: number; productId: number; orderQty: number }
interface Order { salesOrderId: number; salesPersonId?: number; totalDue: number; lines: Line[]; revisionNumber: number }

/**
 * Contract part 13 for sales orders, over HTTP: a delete marks the order deleted and keeps its lines; the order and
 * its lines are gone for reads, writes, lists, counts and line routes; deleted=true and the restore bring them back
 * (the lines as they were); an order whose customer is deleted is not restored; a scoped delete grant lists and
 * restores only its scope's deleted orders.
 */
describeStores(`sales orders: soft delete and restore (${testProvider})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  const lines = [{ productId: 707, orderQty: 2 }, { productId: 708, orderQty: 1 }];

  before(async () => {
    server = await startTestServer({
      logLevel: 'error',
      // A role that deletes, lists deleted and restores only its own orders (the scope of its sales-order.delete grant).
      config: { Authorization: { Roles: { OwnDeleter: ['sales-order.read:own', 'sales-order.delete:own', 'customer.read'] } } },
    });
  });
  after(async () => server?.stop());

  const newCustomer = async () => {
    const reply = await server.call('/customer', { method: 'POST', body: { name: 'Soft Order Customer' } });
    expectOk(reply, 201);
    return reply.body.result.customerId as number;
  };
  const newOrder = async (customerId = 11000) => {
    const reply = await server.call('/sales-order', { method: 'POST', body: { customerId, status: 1, onlineOrderFlag: true, lines } });
    expectOk(reply, 201);
    return reply.body.result.salesOrderId as number;
  };
  const read = async (id: number) => expectOk(await server.call(`/sales-order/${id}`)).result as Order;
  const remove = (id: number, token?: string) => server.call(`/sales-order/${id}`, { method: 'DELETE', ...(token ? { token } : {}) });
  const restore = (id: number, token?: string) => server.call(`/sales-order/${id}/restore`, { method: 'POST', ...(token ? { token } : {}) });
  const ids = async (query: string, token?: string) => {
    const reply = await server.call(`/sales-order?${query}&getTotalCount=true`, token ? { token } : {});
    expectOk(reply);
    return { ids: (reply.body.result as Order[]).map((o) => o.salesOrderId), total: reply.body.totalCount };
  };

  it('a deleted order and its lines are 404 for reads, writes and line routes, and in no list or count', async () => {
    const customerId = await newCustomer();
    const [kept, gone] = [await newOrder(customerId), await newOrder(customerId)];
    const line = (await read(gone)).lines[0].salesOrderDetailId;
    expectOk(await remove(gone));
    expectError(await server.call(`/sales-order/${gone}`), 404, 'Entity_NotFound');
    expectError(await server.call(`/sales-order/${gone}`, { method: 'PUT', body: { status: 2, onlineOrderFlag: true } }), 404, 'Entity_NotFound');
    expectError(await server.call(`/sales-order/${gone}/detail`), 404, 'Entity_NotFound');
    expectError(await server.call(`/sales-order/${gone}/detail/${line}`), 404, 'Entity_NotFound');
    expectError(await server.call(`/sales-order/${gone}/detail`, { method: 'POST', body: lines[0] }), 404, 'Entity_NotFound');
    expectError(await server.call(`/sales-order/${gone}/detail/${line}`, { method: 'PUT', body: lines[0] }), 404, 'Entity_NotFound');
    expectError(await server.call(`/sales-order/${gone}/detail/${line}`, { method: 'DELETE' }), 404, 'Entity_NotFound');
    expectError(await remove(gone), 404, 'Entity_NotFound');
    const name = `customerName=${encodeURIComponent('Soft Order Customer')}`;
    const listed = await ids(`${name}&sort[0].fieldName=salesOrderId`);
    expect(listed.ids).to.include(kept).and.not.include(gone);
    const deleted = await ids(`${name}&deleted=true&sort[0].fieldName=salesOrderId`);
    expect(deleted.ids).to.include(gone).and.not.include(kept);
    expect(await ids(`salesOrderNumber=SO${gone}`)).to.deep.equal({ ids: [], total: 0 });
    expect(await ids(`salesOrderNumber=SO${gone}&deleted=true`)).to.deep.equal({ ids: [gone], total: 1 });
  });

  it('a restore brings the order back with its lines as they were, and history records delete and restore', async () => {
    const id = await newOrder();
    const before = await read(id);
    expectOk(await remove(id));
    const reply = await restore(id);
    expectOk(reply);
    expect(reply.body.result.revisionNumber).to.equal(before.revisionNumber + 2);
    const after = await read(id);
    expect(after.lines).to.deep.equal(before.lines);
    expect(after.totalDue).to.equal(before.totalDue);
    expectError(await restore(id), 404, 'Entity_NotFound');
    const history = expectOk(await server.call(`/sales-order/${id}/history`)).result as { operation: string }[];
    expect(history.map((e) => e.operation)).to.deep.equal(['restore', 'delete', 'create']);
  });

  it('an order whose customer is deleted is refused as a create for an unknown customer, and stays deleted', async () => {
    const customerId = await newCustomer();
    const id = await newOrder(customerId);
    expectOk(await remove(id));
    expectOk(await server.call(`/customer/${customerId}`, { method: 'DELETE' }));
    expectError(await restore(id), 400, 'SalesOrder_UnknownCustomer', 'customerId');
    expect(await ids(`salesOrderNumber=SO${id}&deleted=true`)).to.deep.equal({ ids: [id], total: 1 });
    expectOk(await server.call(`/customer/${customerId}/restore`, { method: 'POST' }));
    expectOk(await restore(id));
    expect((await read(id)).salesOrderId).to.equal(id);
  });

  it('a restore and a delete of its customer sent together: never both (a live order never names a deleted customer)', async () => {
    const customerId = await newCustomer();
    const id = await newOrder(customerId);
    expectOk(await remove(id));
    // The restore checks the customer, then waits for the held order; the customer's delete, finding no live order, goes on.
    const [restored, deleted] = await whileHeld(server, 'sales_order', 'sales_order_id', id, () => [
      restore(id),
      new Promise<void>((resolve) => setTimeout(resolve, 250)).then(() => server.call(`/customer/${customerId}`, { method: 'DELETE' })),
    ]);
    const outcome = [restored.status, deleted.status];
    expect([[200, 409], [400, 200]], `${restored.text} ${deleted.text}`).to.deep.include(outcome);
    if (restored.status === 400) expectError(restored, 400, 'SalesOrder_UnknownCustomer', 'customerId');
    const customer = await server.call(`/customer/${customerId}`);
    const order = await server.call(`/sales-order/${id}`);
    expect([customer.status, order.status]).to.deep.equal(restored.status === 200 ? [200, 200] : [404, 404]);
  });

  it('a delete grant limited by a scope lists and restores only that scope\'s deleted orders; without the grant, 403', async () => {
    const mineList = (await ids('take=1&salesPersonId=275&sort[0].fieldName=salesOrderId')).ids;
    const theirsList = (await ids('take=1&salesPersonId=276&sort[0].fieldName=salesOrderId')).ids;
    const [mine, theirs] = [mineList[0], theirsList[0]];
    const owner = await scopedUser(server, 'olga', ['OwnDeleter'], { salesPersonId: '275' });
    const salesPerson = await scopedUser(server, 'sid', ['SalesPerson'], { salesPersonId: '275' });
    expectError(await remove(theirs, owner), 404, 'Entity_NotFound');
    expectOk(await remove(mine, owner));
    expectOk(await remove(theirs));
    expectError(await server.call('/sales-order?deleted=true', { token: salesPerson }), 403, 'Security_Forbidden');
    const seen = await ids('deleted=true&take=1000', owner);
    expect(seen.ids).to.include(mine).and.not.include(theirs);
    expect(seen.total).to.equal(seen.ids.length);
    expectError(await restore(theirs, owner), 404, 'Entity_NotFound');
    expectError(await server.call(`/sales-order/${theirs}/history`, { token: owner }), 404, 'Entity_NotFound');
    expect((expectOk(await server.call(`/sales-order/${mine}/history`, { token: owner })).result as { operation: string }[])[0].operation).to.equal('delete');
    expectOk(await restore(mine, owner));
    expectOk(await restore(theirs));
  });
});
