import { expect } from 'chai';
import { countOrders, expectOk, listOrders, readOrder } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

describeStores('request property names match case-insensitively (contract part 1)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  describe('in JSON bodies', () => {
    it('creates an order from PascalCase, UPPER and lower case names', async () => {
      const reply = await server.call('/sales-order', {
        method: 'POST',
        body: { CUSTOMERID: 11001, Status: 2, onlineorderflag: false, PurchaseOrderNumber: 'PO-CASE-1', ACCOUNTNUMBER: 'AC-CASE', CoMmEnT: 'mixed case', DUEDATE: '2031-01-15' },
      });
      expectOk(reply, 201);
      const order = await readOrder(server, reply.body.result.salesOrderId);
      expect(order).to.include({
        customerId: 11001, status: 2, onlineOrderFlag: false, purchaseOrderNumber: 'PO-CASE-1',
        accountNumber: 'AC-CASE', comment: 'mixed case', dueDate: '2031-01-15T00:00:00.000Z',
      });
    });

    it('updates an order from differently cased names, revisionNumber included', async () => {
      const reply = await server.call('/sales-order/43660', {
        method: 'PUT',
        body: { STATUS: 4, OnlineOrderFlag: true, COMMENT: 'upper', RevisionNumber: 1 },
      });
      expectOk(reply);
      expect(reply.body.result.revisionNumber).to.equal(2);
      const order = await readOrder(server, 43660);
      expect(order).to.include({ status: 4, onlineOrderFlag: true, comment: 'upper', revisionNumber: 2 });
      const stale = await server.call('/sales-order/43660', { method: 'PUT', body: { status: 4, onlineorderflag: true, REVISIONNUMBER: 1 } });
      expect(stale.status).to.equal(409);
    });

    it('reports a missing field under its schema name even when others are cased differently', async () => {
      const reply = await server.call('/sales-order/43661', { method: 'PUT', body: { STATUS: 5 } });
      expect(reply.status).to.equal(400);
      expect(reply.body.messages.map((m) => [m.code, m.property])).to.deep.equal([['Input_Required', 'onlineOrderFlag']]);
    });
  });

  describe('in query strings', () => {
    it('matches field, operator, paging and getTotalCount names in any case', async () => {
      const lower = await server.call('/sales-order?status=4&take=3&gettotalcount=true');
      const upper = await server.call('/sales-order?STATUS=4&TAKE=3&GETTOTALCOUNT=TRUE');
      const mixed = await server.call('/sales-order?Status=4&Take=3&GetTotalCount=True');
      for (const reply of [lower, upper, mixed]) expectOk(reply);
      expect(lower.body.totalCount).to.be.greaterThan(3);
      expect(upper.body).to.deep.equal(lower.body);
      expect(mixed.body).to.deep.equal(lower.body);
      for (const item of lower.body.result) expect(item.status).to.equal(4);
    });

    it('matches `field.operator` names and operator values in any case', async () => {
      const expected = await countOrders(server, 'territoryId.operator=NIn&territoryId=1&territoryId=2');
      expect(expected).to.be.within(1, 11_999);
      for (const query of ['TERRITORYID.OPERATOR=nin&TerritoryId=1&territoryid=2', 'territoryId.Operator=NIN&TERRITORYID=1&territoryId=2']) {
        expect(await countOrders(server, query)).to.equal(expected);
      }
    });

    it('matches sort names, field names and directions in any case', async () => {
      const canonical = await listOrders(server, 'sort[0].fieldName=totalDue&sort[0].sortDirection=Descending&take=5');
      const shouted = await listOrders(server, 'SORT[0].FIELDNAME=TOTALDUE&Sort[0].SortDirection=descending&TAKE=5');
      expect(shouted).to.deep.equal(canonical);
      expect(canonical[0].totalDue).to.be.at.least(canonical[4].totalDue);
    });

    it('matches skip in any case', async () => {
      const a = await listOrders(server, 'skip=10&take=2');
      const b = await listOrders(server, 'SKIP=10&Take=2');
      expect(b).to.deep.equal(a);
      expect(a[0].salesOrderId).to.equal(43669);
    });
  });
});
