import { expect } from 'chai';
import { mergePatch } from '../audit/audit-support.js';
import { type CallInit, type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { expectNotFound, listOf, scopedUser } from './support.js';
import { describeStores } from '../support/stores.js';

interface OrderRead {
  salesOrderId: number;
  subTotal: number;
  taxAmt: number;
  freight: number;
  totalDue: number;
  lines: { salesOrderDetailId: number; unitPrice: number }[];
}
interface Entry { user: string; operation: string; changes: { field: string; old?: unknown; new?: unknown }[] }

/**
 * What docs/access.md says of prices (issue 37, "your call"): the default `sales-order.update:own` lets a SalesPerson
 * change every writable field of their own orders, prices included (contract parts 9 and 10: update covers PUT, PATCH
 * and every line write; taxAmt and freight are writable by PATCH). The control is the scope and the history: each
 * such change is recorded with the sales person's name and the old and new values, for their manager to see.
 */
describeStores(`record scopes: a SalesPerson's prices on their own orders (${testProvider})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let sam: string;
  let mine: OrderRead;
  let theirs: number;
  const me = 279;
  const as = (token: string) => (path: string, init: CallInit = {}) => server.call(path, { ...init, token });

  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
    sam = await scopedUser(server, 'sam', ['SalesPerson'], { salesPersonId: String(me) });
    const id = listOf(await server.call(`/sales-order?take=1&salesPersonId=${me}&totalDue=1&totalDue.operator=GT`)).items[0].salesOrderId;
    mine = (await as(sam)(`/sales-order/${id}`)).body.result as OrderRead;
    theirs = listOf(await server.call('/sales-order?take=1&salesPersonId=275')).items[0].salesOrderId;
  });
  after(() => server?.stop());

  it('reprices a line of their own order and zeroes its tax and freight; the history names them with the old and new values', async () => {
    expect(mine.taxAmt + mine.freight, 'a sample order with tax or freight').to.be.greaterThan(0);
    const line = mine.lines[0];
    const repriced = await as(sam)(`/sales-order/${mine.salesOrderId}/detail/${line.salesOrderDetailId}`, { method: 'PATCH', headers: mergePatch, body: { unitPrice: 0 } });
    expect(repriced.status, repriced.text).to.equal(200);
    const zeroed = await as(sam)(`/sales-order/${mine.salesOrderId}`, { method: 'PATCH', headers: mergePatch, body: { taxAmt: 0, freight: 0 } });
    expect(zeroed.status, zeroed.text).to.equal(200);

    const after = (await as(sam)(`/sales-order/${mine.salesOrderId}`)).body.result as OrderRead;
    expect([after.taxAmt, after.freight, after.totalDue]).to.deep.equal([0, 0, after.subTotal]);
    const [header, lineWrite] = (await as(sam)(`/sales-order/${mine.salesOrderId}/history?take=2`)).body.result as Entry[];
    expect([lineWrite.user, lineWrite.operation, header.user, header.operation]).to.deep.equal(['sam', 'line-patch', 'sam', 'patch']);
    expect(lineWrite.changes).to.deep.include({ field: `lines[${line.salesOrderDetailId}].unitPrice`, old: line.unitPrice, new: 0 });
    expect(header.changes).to.deep.include.members([
      ...(mine.taxAmt ? [{ field: 'taxAmt', old: mine.taxAmt, new: 0 }] : []),
      ...(mine.freight ? [{ field: 'freight', old: mine.freight, new: 0 }] : []),
    ]);
  });

  it('another sales person\'s order is not theirs to reprice: 404, as for every write out of scope', async () => {
    expectNotFound(await as(sam)(`/sales-order/${theirs}`, { method: 'PATCH', headers: mergePatch, body: { freight: 0 } }), 'PATCH freight of another\'s order');
  });
});
