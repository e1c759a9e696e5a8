import { expect } from 'chai';
import { AUDIT_ENTRY_MAX_BYTES, AUDIT_TRUNCATED_FIELD } from 'restlayer';
import { expectOk } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { someProducts } from '../sales-order/lines-support.js';
import { type Change, expectedChanges, history, orderFields, read } from './audit-support.js';

/**
 * Issue 37, finding 1 (docs/audit.md, "Size of an entry"): one audit entry keeps at most AUDIT_ENTRY_MAX_BYTES of
 * changes. The changes past it are left out and the entry ends with the marker change
 * `{ field: AUDIT_TRUNCATED_FIELD, new: <how many were left out> }`; an entry within it is kept whole.
 */
describeStores('audit: one entry is bounded in size', function () {
  this.timeout(120_000);
  let server: TestServer;
  let productId: number;
  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
    productId = (await someProducts(server)).active.id;
  });
  after(() => server?.stop());

  const createWith = async (n: number) => {
    const lines = Array.from({ length: n }, (_, i) => ({ productId, orderQty: 1 + (i % 5), unitPrice: 3.5 }));
    const reply = await server.call('/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true, lines } });
    return expectOk(reply, 201).result.salesOrderId as number;
  };
  const size = (changes: Change[]) => Buffer.byteLength(JSON.stringify(changes));

  it('the create of an order at the line cap keeps the first changes within the bound and says how many it left out', async () => {
    const id = await createWith(server.config.Documents.MaxLines);
    const record = `/sales-order/${id}`;
    const all = expectedChanges({}, orderFields(await read(server, record)));
    // What the entry would hold uncut: well over the bound (the audit's 30,000-line order made one of 4.8 MB).
    expect(size(all)).to.be.above(AUDIT_ENTRY_MAX_BYTES);
    const [entry] = await history(server, record);
    expect(entry.operation).to.equal('create');
    expect(size(entry.changes)).to.be.at.most(AUDIT_ENTRY_MAX_BYTES);
    const marker = entry.changes.at(-1)!;
    expect(marker.field).to.equal(AUDIT_TRUNCATED_FIELD);
    const kept = entry.changes.slice(0, -1);
    expect(kept.length).to.be.above(0);
    // Each kept change is one of the order's, as it is (compared as text: thousands of them).
    const changesOf = new Set(all.map((c) => JSON.stringify(c)));
    expect(kept.filter((c) => !changesOf.has(JSON.stringify(c)))).to.deep.equal([]);
    expect(marker).to.deep.equal({ field: AUDIT_TRUNCATED_FIELD, new: all.length - kept.length });
    // The header's fields come first: the record itself is always in its entry.
    for (const field of ['status', 'customerId', 'subTotal', 'totalDue']) expect(kept.map((c) => c.field)).to.include(field);
  });

  it('an entry within the bound is kept whole, with no marker', async () => {
    const id = await createWith(3);
    const record = `/sales-order/${id}`;
    const [entry] = await history(server, record);
    expect(entry.changes).to.have.deep.members(expectedChanges({}, orderFields(await read(server, record))));
    expect(entry.changes.map((c) => c.field)).to.not.include(AUDIT_TRUNCATED_FIELD);
  });
});
