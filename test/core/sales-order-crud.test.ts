import { expect } from 'chai';
import { countOrders, createOrder, expectError, expectOk, newOrderData, readOrder } from '../support/api.js';
import { asListItem, sampleOrder } from '../support/sample-oracle.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const listFields = ['salesOrderId', 'salesOrderNumber', 'status', 'orderDate', 'dueDate', 'shipDate', 'customerId', 'customerName', 'territoryId', 'salesPersonId', 'totalDue', 'onlineOrderFlag'];
const readFields = [...listFields, 'purchaseOrderNumber', 'accountNumber', 'comment', 'subTotal', 'taxAmt', 'freight', 'lines', 'revisionNumber', 'modifiedDate'];
const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeStores('sales order CRUD (contract parts 3 and 9)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  describe('GET /sales-order/{id}', () => {
    it('answers every read output field of a sample order, with the list fields equal to the list item', async () => {
      const order = await readOrder(server, 43659);
      const expected = asListItem(sampleOrder(43659));
      expect(Object.keys(expected)).to.have.members(listFields);
      expect(order).to.include(expected);
      expect(order).to.include({ purchaseOrderNumber: 'PO8646226261949', accountNumber: '10-4030-011358', revisionNumber: 1 });
      expect(order.modifiedDate).to.match(isoInstant);
      expect(Object.keys(order)).to.have.members(readFields.filter((f) => f !== 'comment'));
      const [listed] = (await server.call('/sales-order?salesOrderNumber=SO43659')).body.result;
      expect(listed).to.deep.equal(expected);
    });

    it('answers 404 Entity_NotFound with the contract text for an unknown id', async () => {
      const m = expectError(await server.call('/sales-order/5'), 404, 'Entity_NotFound');
      expect(m.message).to.equal('Sales order with id 5 not found.');
      expect(m.type).to.equal('Data');
    });
  });

  describe('POST /sales-order', () => {
    it('answers 201 with a Location that GETs the new order, holding what was sent', async () => {
      const data = newOrderData({
        customerId: 11003, status: 2, onlineOrderFlag: false, purchaseOrderNumber: 'P'.repeat(25), accountNumber: 'A'.repeat(15),
        comment: 'C'.repeat(128), dueDate: '2031-03-04', shipDate: '2031-03-01T10:30:00Z',
      });
      const reply = await server.call('/sales-order', { method: 'POST', body: data });
      expectOk(reply, 201);
      const created = reply.body.result;
      expect(Object.keys(created)).to.have.members(['salesOrderId', 'salesOrderNumber', 'revisionNumber', 'modifiedDate']);
      expect(created.revisionNumber).to.equal(1);
      expect(created.salesOrderId).to.be.greaterThan(55_658);
      expect(reply.headers.get('Location')).to.equal(`/sales-order/${created.salesOrderId}`);

      const read = await server.call(reply.headers.get('Location')!);
      expectOk(read);
      const order = read.body.result;
      expect(Object.keys(order)).to.have.members(readFields.filter((f) => f !== 'salesPersonId'));
      expect(order).to.include({
        salesOrderId: created.salesOrderId, salesOrderNumber: created.salesOrderNumber, customerId: 11003, status: 2,
        onlineOrderFlag: false, purchaseOrderNumber: 'P'.repeat(25), accountNumber: 'A'.repeat(15), comment: 'C'.repeat(128),
        dueDate: '2031-03-04T00:00:00.000Z', shipDate: '2031-03-01T10:30:00.000Z', revisionNumber: 1, modifiedDate: created.modifiedDate,
      });
      expect(order.customerName).to.be.a('string').and.not.empty;
      expect(order.territoryId).to.be.within(1, 10);
    });

    it('makes the new order visible to the list', async () => {
      const { id } = await createOrder(server, { comment: 'listed' });
      const reply = await server.call(`/sales-order?salesOrderNumber=SO${id}`);
      expect(reply.body.result.map((o: { salesOrderId: number }) => o.salesOrderId)).to.deep.equal([id]);
    });

    it('answers 400 with property status for a status not in sales-order-status, and creates nothing', async () => {
      const before = await countOrders(server);
      for (const status of [0, 7, 99, -1]) {
        const m = expectError(await server.call('/sales-order', { method: 'POST', body: newOrderData({ status }) }), 400, 'SalesOrder_InvalidStatus', 'status');
        expect(m.type).to.equal('Validation');
      }
      expect(await countOrders(server)).to.equal(before);
    });

    it('answers 400 with property customerId for an unknown customer', async () => {
      expectError(await server.call('/sales-order', { method: 'POST', body: newOrderData({ customerId: 999_999 }) }), 400, 'SalesOrder_UnknownCustomer', 'customerId');
    });
  });

  describe('maximum lengths', () => {
    const limits: [string, number][] = [['purchaseOrderNumber', 25], ['accountNumber', 15], ['comment', 128]];
    for (const [field, max] of limits) {
      it(`accepts ${field} of ${max} characters and refuses ${max + 1}, on create and update`, async () => {
        const ok = await server.call('/sales-order', { method: 'POST', body: newOrderData({ [field]: 'x'.repeat(max) }) });
        expectOk(ok, 201);
        const id = ok.body.result.salesOrderId;
        expect((await readOrder(server, id))[field]).to.equal('x'.repeat(max));
        expectError(await server.call('/sales-order', { method: 'POST', body: newOrderData({ [field]: 'y'.repeat(max + 1) }) }), 400, 'Input_TooLong', field);
        expectError(await server.call(`/sales-order/${id}`, { method: 'PUT', body: { status: 1, onlineOrderFlag: true, [field]: 'z'.repeat(max + 1) } }), 400, 'Input_TooLong', field);
        expect((await readOrder(server, id))[field]).to.equal('x'.repeat(max));
        expectOk(await server.call(`/sales-order/${id}`, { method: 'PUT', body: { status: 1, onlineOrderFlag: true, [field]: 'w'.repeat(max) } }));
        expect((await readOrder(server, id))[field]).to.equal('w'.repeat(max));
      });
    }

    it('counts characters, not bytes', async () => {
      const reply = await server.call('/sales-order', { method: 'POST', body: newOrderData({ comment: 'é'.repeat(128) }) });
      expectOk(reply, 201);
      expect((await readOrder(server, reply.body.result.salesOrderId)).comment).to.equal('é'.repeat(128));
    });
  });

  describe('PUT /sales-order/{id}', () => {
    it('answers exactly revisionNumber and modifiedDate, and the order reads back changed', async () => {
      const before = await readOrder(server, 43670);
      const reply = await server.call('/sales-order/43670', { method: 'PUT', body: { status: 3, onlineOrderFlag: true, comment: 'updated', revisionNumber: before.revisionNumber } });
      expectOk(reply);
      expect(Object.keys(reply.body.result)).to.have.members(['revisionNumber', 'modifiedDate']);
      expect(reply.body.result.revisionNumber).to.equal((before.revisionNumber as number) + 1);
      expect(reply.body.result.modifiedDate).to.match(isoInstant);
      const after = await readOrder(server, 43670);
      expect(after).to.include({ status: 3, onlineOrderFlag: true, comment: 'updated', revisionNumber: 2, modifiedDate: reply.body.result.modifiedDate });
      expect(after).to.include({ orderDate: before.orderDate, customerId: before.customerId, salesOrderNumber: before.salesOrderNumber });
      // PUT replaces: taxAmt and freight it leaves out are cleared to 0, so totalDue is the lines' subTotal.
      expect(after).to.include({ subTotal: before.subTotal, taxAmt: 0, freight: 0, totalDue: before.subTotal });
    });

    it('updates without revisionNumber too (no concurrency check asked)', async () => {
      const before = (await readOrder(server, 43671)).revisionNumber as number;
      expectOk(await server.call('/sales-order/43671', { method: 'PUT', body: { status: 5, onlineOrderFlag: false } }));
      expect((await readOrder(server, 43671)).revisionNumber).to.equal(before + 1);
    });

    it('answers 409 Entity_Concurrency to a stale revisionNumber and writes nothing', async () => {
      expectOk(await server.call('/sales-order/43672', { method: 'PUT', body: { status: 2, onlineOrderFlag: true, comment: 'first', revisionNumber: 1 } }));
      const current = await readOrder(server, 43672);
      for (const revisionNumber of [1, 3, 100]) {
        const reply = await server.call('/sales-order/43672', { method: 'PUT', body: { status: 4, onlineOrderFlag: false, comment: 'stale', revisionNumber } });
        const m = expectError(reply, 409, 'Entity_Concurrency', 'revisionNumber');
        expect(m.type).to.equal('Concurrency');
      }
      expect(await readOrder(server, 43672)).to.deep.equal(current);
      expect(current).to.include({ comment: 'first', revisionNumber: 2 });
    });

    it('answers 400 with property status for a status not in the lookup, and writes nothing', async () => {
      const before = await readOrder(server, 43673);
      expectError(await server.call('/sales-order/43673', { method: 'PUT', body: { status: 8, onlineOrderFlag: true, comment: 'nope' } }), 400, 'SalesOrder_InvalidStatus', 'status');
      expect(await readOrder(server, 43673)).to.deep.equal(before);
    });

    it('answers 404 Entity_NotFound for an unknown id', async () => {
      const m = expectError(await server.call('/sales-order/7', { method: 'PUT', body: { status: 1, onlineOrderFlag: true } }), 404, 'Entity_NotFound');
      expect(m.message).to.equal('Sales order with id 7 not found.');
    });
  });

  describe('DELETE /sales-order/{id}', () => {
    it('answers 200 with an envelope without result, then the order is gone (404 Entity_NotFound)', async () => {
      const { id } = await createOrder(server, { comment: 'to delete' });
      const total = await countOrders(server);
      const reply = await server.call(`/sales-order/${id}`, { method: 'DELETE' });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({ messages: [] });
      const m = expectError(await server.call(`/sales-order/${id}`), 404, 'Entity_NotFound');
      expect(m.message).to.equal(`Sales order with id ${id} not found.`);
      expect(await countOrders(server)).to.equal(total - 1);
      const again = expectError(await server.call(`/sales-order/${id}`, { method: 'DELETE' }), 404, 'Entity_NotFound');
      expect(again.message).to.equal(`Sales order with id ${id} not found.`);
      expectError(await server.call(`/sales-order/${id}`, { method: 'PUT', body: { status: 1, onlineOrderFlag: true } }), 404, 'Entity_NotFound');
    });

    it('deletes a sample order and only that one', async () => {
      const total = await countOrders(server);
      expectOk(await server.call('/sales-order/43680', { method: 'DELETE' }));
      expect(await countOrders(server)).to.equal(total - 1);
      expectError(await server.call('/sales-order/43680'), 404, 'Entity_NotFound');
      expect((await readOrder(server, 43681)).salesOrderId).to.equal(43681);
    });
  });
});
