import { expect } from 'chai';
import { expectError, expectOk, newOrderData, qs } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

/** The customer service over the sample data, where orders refer to customers (contract part 9, last paragraph). */
describeStores('customer service with the sample orders', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  const listOrders = async (customerId: number) => {
    const customer = (await server.call(`/customer/${customerId}`)).body.result;
    const reply = await server.call(`/sales-order?${qs({ customerName: customer.name, take: 1000 })}`);
    return (reply.body.result as { customerId: number }[]).filter((o) => o.customerId === customerId);
  };

  it('reads a sample customer with its revision and modified date, and lists by the contract criteria', async () => {
    const { result } = expectOk(await server.call('/customer/11000'));
    expect(result).to.include({ customerId: 11000, revisionNumber: 1, accountNumber: '10-4030-011000' });
    expect(result.name).to.be.a('string');
    expect(Date.parse(result.modifiedDate)).to.be.a('number').and.not.NaN;
    const list = await server.call(`/customer?${qs([['territoryId', 1], ['territoryId', 2], ['sort[0].fieldName', 'name'], ['take', 50], ['getTotalCount', true]])}`);
    const body = expectOk(list);
    expect(body.totalCount).to.be.greaterThan(50);
    const names = (body.result as { name: string; territoryId: number }[]).map((c) => c.name);
    expect(names).to.deep.equal([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    for (const c of body.result as { territoryId: number }[]) expect([1, 2]).to.include(c.territoryId);
  });

  it('deleting a customer that orders refer to is a 409 Entity_InUse, and nothing is deleted', async () => {
    const orders = await listOrders(11000);
    expect(orders.length).to.be.greaterThan(0);
    const m = expectError(await server.call('/customer/11000', { method: 'DELETE' }), 409, 'Entity_InUse');
    expect(m.message).to.match(/Customer 11000 cannot be deleted: \d+ sales orders? refers? to it\./);
    expectOk(await server.call('/customer/11000'));
    expect((await listOrders(11000)).length).to.equal(orders.length);
  });

  it('a new customer takes a fresh id, can be ordered for, and is deletable once its orders are gone', async () => {
    const created = await server.call('/customer', { method: 'POST', body: { name: 'Zed Fresh Cycles', territoryId: 3 } });
    expectOk(created, 201);
    const id = created.body.result.customerId as number;
    expect(id).to.be.greaterThan(11799);
    const order = await server.call('/sales-order', { method: 'POST', body: newOrderData({ customerId: id }) });
    expectOk(order, 201);
    expectError(await server.call(`/customer/${id}`, { method: 'DELETE' }), 409, 'Entity_InUse');
    expectOk(await server.call(`/sales-order/${order.body.result.salesOrderId}`, { method: 'DELETE' }));
    expectOk(await server.call(`/customer/${id}`, { method: 'DELETE' }));
    expectError(await server.call(`/customer/${id}`), 404, 'Entity_NotFound');
  });

  it('a delete racing order creation never leaves an order without its customer', async () => {
    for (let round = 0; round < 5; round++) {
      const id = (await server.call('/customer', { method: 'POST', body: { name: `Race ${round}` } })).body.result.customerId as number;
      const replies = await Promise.all([
        ...Array.from({ length: 4 }, () => server.call('/sales-order', { method: 'POST', body: newOrderData({ customerId: id }) })),
        server.call(`/customer/${id}`, { method: 'DELETE' }),
        ...Array.from({ length: 4 }, () => server.call('/sales-order', { method: 'POST', body: newOrderData({ customerId: id }) })),
      ]);
      const deleted = replies[4];
      const created = replies.filter((r, i) => i !== 4 && r.status === 201);
      if (deleted.status === 200) {
        expect(created, `round ${round}: orders created for a deleted customer`).to.have.length(0);
        expectError(await server.call(`/customer/${id}`), 404, 'Entity_NotFound');
      } else {
        expect(deleted.status, deleted.text).to.equal(409);
        expect(created.length).to.be.greaterThan(0);
        for (const r of created) expectOk(await server.call(`/sales-order/${r.body.result.salesOrderId}`));
      }
    }
  });

  it('PATCH renames a customer, and its orders list under the new name; null clears the account number', async () => {
    const id = 11001;
    const before = (await listOrders(id)).length;
    expectOk(await server.call(`/customer/${id}`, { method: 'PATCH', body: { name: 'Renamed Customer 11001', accountNumber: null }, headers: mergePatch }));
    const { result } = expectOk(await server.call(`/customer/${id}`));
    expect(result).to.not.have.property('accountNumber');
    expect(result.name).to.equal('Renamed Customer 11001');
    expect(result.revisionNumber).to.equal(2);
    expect((await listOrders(id)).length).to.equal(before);
  });

  it('refuses a territory that is not a sales-territory id, on the property', async () => {
    expectError(await server.call('/customer/11002', { method: 'PATCH', body: { territoryId: 99 }, headers: mergePatch }), 400, 'Customer_InvalidTerritoryId', 'territoryId');
  });

});
