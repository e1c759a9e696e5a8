import { expect } from 'chai';
import { countOrders, expectError, readOrder } from '../support/api.js';
import type { Reply } from '../support/server.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

/** [property, code] of every message, sorted, for order-independent comparison. */
const problems = (reply: Reply) => reply.body.messages.map((m) => [m.property, m.code] as [string | undefined, string]).sort();

describeStores('validation (contract part 3)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  describe('JSON bodies', () => {
    it('reports every problem at once, one message each, with its property', async () => {
      const reply = await server.call('/sales-order/43659', {
        method: 'PUT',
        body: {
          status: 'five', onlineOrderFlag: 'maybe', purchaseOrderNumber: 'p'.repeat(26), accountNumber: 'a'.repeat(16),
          comment: 'c'.repeat(129), dueDate: 'next tuesday', shipDate: 42, revisionNumber: 0, color: 'red',
        },
      });
      expect(reply.status).to.equal(400);
      expect(reply.body).to.not.have.property('result');
      expect(problems(reply)).to.deep.equal([
        ['accountNumber', 'Input_TooLong'],
        ['color', 'Input_UnknownProperty'],
        ['comment', 'Input_TooLong'],
        ['dueDate', 'Input_InvalidType'],
        ['onlineOrderFlag', 'Input_InvalidType'],
        ['purchaseOrderNumber', 'Input_TooLong'],
        ['revisionNumber', 'Input_OutOfRange'],
        ['shipDate', 'Input_InvalidType'],
        ['status', 'Input_InvalidType'],
      ]);
      for (const m of reply.body.messages) {
        expect(m.severity).to.equal('Error');
        expect(m.type).to.equal('Validation');
        expect(m.message).to.contain(m.property);
      }
    });

    it('reports each missing required field with its property', async () => {
      const reply = await server.call('/sales-order', { method: 'POST', body: { comment: 'only a comment' } });
      expect(reply.status).to.equal(400);
      expect(problems(reply)).to.deep.equal([
        ['customerId', 'Input_Required'],
        ['onlineOrderFlag', 'Input_Required'],
        ['status', 'Input_Required'],
      ]);
    });

    for (const [label, body] of [['an array', '[]'], ['a string', '"text"'], ['null', 'null'], ['a number', '7']] as const) {
      it(`refuses ${label} as the body with 400`, async () => {
        const reply = await server.call('/sales-order/43659', { method: 'PUT', body });
        expect(reply.status).to.equal(400);
        expect(reply.body.messages.map((m) => m.code)).to.include('Input_InvalidType');
      });
    }

    it('refuses a missing body with 400 Input_Required', async () => {
      expectError(await server.call('/sales-order/43659', { method: 'PUT' }), 400, 'Input_Required');
    });

    it('refuses a date that is not a calendar day', async () => {
      for (const dueDate of ['2031-02-30', '2031-13-01', '2031-04-31', '31/12/2031']) {
        const reply = await server.call('/sales-order/43659', { method: 'PUT', body: { status: 5, onlineOrderFlag: false, dueDate } });
        expectError(reply, 400, 'Input_InvalidType', 'dueDate');
      }
    });
  });

  describe('route ids', () => {
    for (const id of ['abc', '1.5', '12abc', '1e3', '99999999999999999999', '%20']) {
      it(`answers 400 with property _salesOrderId to id ${JSON.stringify(id)}`, async () => {
        for (const method of ['GET', 'DELETE']) {
          expectError(await server.call(`/sales-order/${id}`, { method }), 400, 'Input_InvalidType', '_salesOrderId');
        }
      });
    }

    it('answers 400 with property _salesOrderId to ids below 1', async () => {
      for (const id of ['0', '-5']) expectError(await server.call(`/sales-order/${id}`), 400, 'Input_OutOfRange', '_salesOrderId');
    });

    it('reports a bad id together with the body problems', async () => {
      const reply = await server.call('/sales-order/abc', { method: 'PUT', body: { status: 5 } });
      expect(reply.status).to.equal(400);
      expect(problems(reply)).to.deep.equal([['_salesOrderId', 'Input_InvalidType'], ['onlineOrderFlag', 'Input_Required']]);
    });
  });

  describe('query strings', () => {
    it('reports every problem at once, each with its property', async () => {
      const reply = await server.call('/sales-order?take=many&skip=-1&status=open&orderDate=yesterday&onlineOrderFlag=yes&totalDue=cheap&colour=red&getTotalCount=perhaps&sort[0].fieldName=colour');
      expect(reply.status).to.equal(400);
      expect(reply.body).to.not.have.property('result');
      expect(problems(reply)).to.deep.equal([
        ['colour', 'Input_UnknownProperty'],
        ['getTotalCount', 'Input_InvalidType'],
        ['onlineOrderFlag', 'Input_InvalidType'],
        ['orderDate', 'Input_InvalidType'],
        ['skip', 'Input_OutOfRange'],
        ['sort[0].fieldName', 'Input_InvalidValue'],
        ['status', 'Input_InvalidType'],
        ['take', 'Input_InvalidType'],
        ['totalDue', 'Input_InvalidType'],
      ]);
    });

    it('refuses a paging parameter given twice', async () => {
      expectError(await server.call('/sales-order?take=1&take=2'), 400, 'Input_Duplicate', 'take');
    });

    it('refuses query parameters on routes that take none', async () => {
      expectError(await server.call('/sales-order/43659?expand=lines'), 400, 'Input_UnknownProperty', 'expand');
    });
  });

  describe('invalid input never reaches the operation', () => {
    it('leaves the order unchanged after an invalid PUT (structure or business rule)', async () => {
      const before = await readOrder(server, 43662);
      const invalid = [
        { status: 1, onlineOrderFlag: true, comment: 'x'.repeat(129) },
        { status: 1, onlineOrderFlag: 'no', comment: 'changed' },
        { status: 7, onlineOrderFlag: true, comment: 'changed' },
        { status: 1, onlineOrderFlag: true, comment: 'changed', dueDate: '2000-01-01' },
        { status: 1, onlineOrderFlag: true, comment: 'changed', unknownField: 1 },
      ];
      for (const body of invalid) {
        const reply = await server.call('/sales-order/43662', { method: 'PUT', body });
        expect(reply.status, JSON.stringify(body)).to.equal(400);
      }
      expect(await readOrder(server, 43662)).to.deep.equal(before);
      expect(before.revisionNumber).to.equal(1);
    });

    it('creates nothing after an invalid POST', async () => {
      const before = await countOrders(server);
      const invalid = [
        { customerId: 11000, status: 1, onlineOrderFlag: true, purchaseOrderNumber: 'p'.repeat(26) },
        { customerId: 'x', status: 1, onlineOrderFlag: true },
        { customerId: 11000, status: 99, onlineOrderFlag: true },
        { customerId: 1, status: 1, onlineOrderFlag: true },
      ];
      for (const body of invalid) {
        const reply = await server.call('/sales-order', { method: 'POST', body });
        expect(reply.status, JSON.stringify(body)).to.equal(400);
        expect(reply.headers.get('Location')).to.equal(null);
      }
      expect(await countOrders(server)).to.equal(before);
    });

    it('deletes nothing after an invalid id', async () => {
      const before = await countOrders(server);
      expect((await server.call('/sales-order/43663.0', { method: 'DELETE' })).status).to.equal(400);
      expect(await countOrders(server)).to.equal(before);
      expect((await readOrder(server, 43663)).salesOrderId).to.equal(43663);
    });
  });
});
