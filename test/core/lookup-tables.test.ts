import { expect } from 'chai';
import { expectError, expectOk } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { salesDb } from '../support/sales-db.js';
import { describeStores } from '../support/stores.js';

const OPERATORS = ['EQ', 'NEQ', 'In', 'NIn', 'LT', 'LE', 'GT', 'GE', 'BW', 'NBW', 'CN', 'NCN', 'SW', 'NSW', 'NL', 'NNL'];
const TYPES = ['sales-order-status', 'sales-territory', 'sales-person', 'operators'];

interface Item {
  id: string | number;
  text: string;
  isActive: boolean;
  attributes: Record<string, unknown>;
}

describeStores('lookup tables (contract parts 5 and 9)', () => {
  let server: TestServer;
  const admin = () => server.token({ role: ['Administrator'] });
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  describe('concurrent first use', () => {
    it('answers every one of many simultaneous first GETs of every table, all with the same content and ETag', async () => {
      const replies = await Promise.all(TYPES.flatMap((type) => Array.from({ length: 10 }, () => server.call(`/lookup-table/${type}`))));
      for (const [i, type] of TYPES.entries()) {
        const group = replies.slice(i * 10, i * 10 + 10);
        for (const reply of group) {
          expectOk(reply);
          expect(reply.body.result.type).to.equal(type);
          expect(reply.text).to.equal(group[0].text);
          expect(reply.headers.get('ETag')).to.equal(group[0].headers.get('ETag'));
        }
      }
    });
  });

  describe('GET /lookup-table/{type}', () => {
    for (const type of TYPES) {
      it(`answers ${type} as Output<LookupTable> with an ETag`, async () => {
        const reply = await server.call(`/lookup-table/${type}`);
        expectOk(reply);
        expect(Object.keys(reply.body.result)).to.have.members(['type', 'caseSensitive', 'data']);
        expect(reply.body.result.type).to.equal(type);
        expect(reply.body.result.caseSensitive).to.be.a('boolean');
        const data = reply.body.result.data as Item[];
        expect(data.length).to.be.greaterThan(3);
        for (const item of data) {
          expect(Object.keys(item)).to.have.members(['id', 'text', 'isActive', 'attributes']);
          expect(item.text).to.be.a('string').and.not.empty;
          expect(item.isActive).to.be.a('boolean');
          expect(item.attributes).to.be.an('object');
        }
        expect(new Set(data.map((d) => d.id)).size).to.equal(data.length);
        expect(reply.headers.get('ETag')).to.match(/^(W\/)?"[^"]+"$/);
      });
    }

    it('answers sales-order-status with exactly the six statuses of part 9', async () => {
      const data = (await server.call('/lookup-table/sales-order-status')).body.result.data as Item[];
      expect(data.map((d) => [d.id, d.text, d.isActive])).to.deep.equal([
        [1, 'In process', true], [2, 'Approved', true], [3, 'Backordered', true],
        [4, 'Rejected', true], [5, 'Shipped', true], [6, 'Cancelled', true],
      ]);
    });

    it('answers operators with exactly the operators of part 3', async () => {
      const data = (await server.call('/lookup-table/operators')).body.result.data as Item[];
      expect(data.map((d) => d.id)).to.have.members(OPERATORS);
      expect(data).to.have.length(OPERATORS.length);
    });

    it('answers the territories and sales people the orders refer to', async () => {
      const territories = (await server.call('/lookup-table/sales-territory')).body.result.data as Item[];
      expect(territories.map((t) => t.id)).to.have.members([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const people = (await server.call('/lookup-table/sales-person')).body.result.data as Item[];
      const used = new Set<number>();
      for (const o of (await server.call('/sales-order?salesPersonId.operator=NNL&take=1000')).body.result) used.add(o.salesPersonId);
      expect(used.size).to.be.greaterThan(5);
      for (const id of used) expect(people.map((p) => p.id)).to.include(id);
      expect(people.find((p) => p.text === 'Syed Abbas')?.isActive).to.equal(false);
    });

    it('answers 404 LookupTable_NotFound with the contract text for an unknown type', async () => {
      const m = expectError(await server.call('/lookup-table/no-such-table'), 404, 'LookupTable_NotFound');
      expect(m.message).to.equal("Lookup table 'no-such-table' is not found in the global lookup cache.");
      expect(m.type).to.equal('Data');
    });
  });

  describe('ETag and If-None-Match', () => {
    it('answers 304 without a body to a matching If-None-Match, in every accepted form', async () => {
      const first = await server.call('/lookup-table/sales-territory');
      const etag = first.headers.get('ETag')!;
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const reply = await server.call('/lookup-table/sales-territory', { headers: { 'If-None-Match': ifNoneMatch } });
        expect(reply.status, ifNoneMatch).to.equal(304);
        expect(reply.text).to.equal('');
        expect(reply.headers.get('ETag')).to.equal(etag);
        expect(reply.headers.get('X-Request-Id')).to.be.a('string').and.not.empty;
      }
    });

    it('answers 304 even when the client also sends Cache-Control: no-cache (as fetch does with If-None-Match)', async () => {
      const etag = (await server.call('/lookup-table/operators')).headers.get('ETag')!;
      const reply = await server.call('/lookup-table/operators', { headers: { 'If-None-Match': etag, 'Cache-Control': 'no-cache' } });
      expect(reply.status).to.equal(304);
    });

    it('answers 200 with the table to a stale If-None-Match', async () => {
      const reply = await server.call('/lookup-table/sales-territory', { headers: { 'If-None-Match': '"not-the-etag"' } });
      expectOk(reply);
      expect(reply.body.result.data).to.have.length(10);
    });

    it('gives each table its own ETag', async () => {
      const etags = await Promise.all(TYPES.map(async (t) => (await server.call(`/lookup-table/${t}`)).headers.get('ETag')));
      expect(new Set(etags).size).to.equal(TYPES.length);
    });

    it('still needs authentication: no 304 (and no table) for an anonymous caller', async () => {
      const etag = (await server.call('/lookup-table/operators')).headers.get('ETag')!;
      const reply = await server.call('/lookup-table/operators', { token: null, headers: { 'If-None-Match': etag } });
      expectError(reply, 401, 'Security_Unauthenticated');
    });
  });

  describe('DELETE /lookup-table/{type}', () => {
    it('needs the permission lookup-table.flush (Administrator): 403 Security_Forbidden for another role, 401 without credentials', async () => {
      expectError(await server.call('/lookup-table/operators', { method: 'DELETE', token: server.token({ role: ['Clerk'] }) }), 403, 'Security_Forbidden');
      expectError(await server.call('/lookup-table/operators', { method: 'DELETE', token: server.token({ role: ['Clerk', 'Manager'] }) }), 403, 'Security_Forbidden');
      expectError(await server.call('/lookup-table/operators', { method: 'DELETE', token: null }), 401, 'Security_Unauthenticated');
    });

    it('answers 200 with an envelope without result', async () => {
      const reply = await server.call('/lookup-table/sales-person', { method: 'DELETE', token: admin() });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({ messages: [] });
      expectOk(await server.call('/lookup-table/sales-person'));
    });

    it('answers 404 LookupTable_NotFound for an unknown type', async () => {
      const m = expectError(await server.call('/lookup-table/nothing-here', { method: 'DELETE', token: admin() }), 404, 'LookupTable_NotFound');
      expect(m.message).to.equal("Lookup table 'nothing-here' is not found in the global lookup cache.");
    });

    it('serves the cached table until it is dropped, then reloads it on the next GET (with a new ETag)', async () => {
      const before = await server.call('/lookup-table/sales-order-status');
      const etag = before.headers.get('ETag')!;
      const db = salesDb(server.infrastructure.storage);
      await db.updateTable('sales_order_status').set({ name: 'Annulled' }).where('status_id', '=', 6).execute();
      try {
        const cached = await server.call('/lookup-table/sales-order-status');
        expect(cached.body.result.data[5].text).to.equal('Cancelled');
        expect(cached.headers.get('ETag')).to.equal(etag);
        expect((await server.call('/lookup-table/sales-order-status', { headers: { 'If-None-Match': etag } })).status).to.equal(304);

        // A forbidden DELETE drops nothing.
        expectError(await server.call('/lookup-table/sales-order-status', { method: 'DELETE', token: server.token({ role: ['Viewer'] }) }), 403, 'Security_Forbidden');
        expect((await server.call('/lookup-table/sales-order-status')).body.result.data[5].text).to.equal('Cancelled');

        expectOk(await server.call('/lookup-table/sales-order-status', { method: 'DELETE', token: admin() }));
        const reloaded = await server.call('/lookup-table/sales-order-status', { headers: { 'If-None-Match': etag } });
        expectOk(reloaded);
        expect(reloaded.body.result.data[5]).to.deep.equal({ id: 6, text: 'Annulled', isActive: true, attributes: {} });
        expect(reloaded.headers.get('ETag')).to.not.equal(etag);
      } finally {
        await db.updateTable('sales_order_status').set({ name: 'Cancelled' }).where('status_id', '=', 6).execute();
        await server.call('/lookup-table/sales-order-status', { method: 'DELETE', token: admin() });
      }
      expect((await server.call('/lookup-table/sales-order-status')).headers.get('ETag')).to.equal(etag);
    });

    it('makes order validation use the reloaded table', async () => {
      const db = salesDb(server.infrastructure.storage);
      await db.updateTable('sales_order_status').set({ is_active: 0 }).where('status_id', '=', 3).execute();
      try {
        const body = { status: 3, onlineOrderFlag: true };
        expectOk(await server.call('/sales-order/43659', { method: 'PUT', body }));
        expectOk(await server.call('/lookup-table/sales-order-status', { method: 'DELETE', token: admin() }));
        expectError(await server.call('/sales-order/43659', { method: 'PUT', body }), 400, 'SalesOrder_InvalidStatus', 'status');
      } finally {
        await db.updateTable('sales_order_status').set({ is_active: 1 }).where('status_id', '=', 3).execute();
        await server.call('/lookup-table/sales-order-status', { method: 'DELETE', token: admin() });
      }
      expectOk(await server.call('/sales-order/43659', { method: 'PUT', body: { status: 3, onlineOrderFlag: true } }));
    });
  });
});
