import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { expectError, expectOk } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { type WireProduct, addLine, orderWith, someProducts } from '../sales-order/lines-support.js';
import { auditCount, expectedChanges, history, latest, mergePatch, orderFields, read } from './audit-support.js';
import { describeStores } from '../support/stores.js';

/**
 * Issue 24 item 4 (contract part 11): every write of an order and of its lines leaves one audit entry, in its own
 * transaction, with each changed field's old and new value as on the wire (the lines as `lines[<id>].<field>`, the
 * totals that moved); a write that fails or is rolled back leaves none.
 */
describeStores('audit: sales orders and their lines', function () {
  this.timeout(60_000);
  let server: TestServer;
  let product: WireProduct;
  let other: WireProduct;
  let inactive: WireProduct;
  before(async () => {
    server = await startTestServer();
    ({ active: product, other, inactive } = await someProducts(server));
  });
  after(() => server.stop());

  const path = (id: number) => `/sales-order/${id}`;
  /** Runs `write`, then asserts the order's newest entry: `operation` by tester, the changes from the read before to the read after. */
  async function expectAudited(id: number, operation: string, write: () => Promise<unknown>) {
    const before = orderFields(await read(server, path(id)));
    const entries = (await history(server, path(id))).length;
    await write();
    const after = orderFields(await read(server, path(id)));
    const all = await history(server, path(id));
    expect(all.length).to.equal(entries + 1);
    expect(all[0].operation).to.equal(operation);
    expect(all[0].user).to.equal('tester');
    expect(all[0].changes).to.have.deep.members(expectedChanges(before, after));
    return all[0];
  }

  it('create records every field of the order and of each line, new values only, with the acting user and time', async () => {
    const started = Date.now();
    const id = await orderWith(server, [{ productId: product.id, orderQty: 2 }, { productId: other.id, orderQty: 1, unitPrice: 10, unitPriceDiscount: 0.25 }],
      { comment: 'audited', freight: 3.5 });
    const order = await read(server, path(id));
    const entries = await history(server, path(id));
    expect(entries).to.have.length(1);
    const [entry] = entries;
    expect(entry.operation).to.equal('create');
    expect(entry.user).to.equal('tester');
    expect(Date.parse(entry.at)).to.be.within(started - 1000, Date.now() + 1000);
    expect(entry.changes).to.have.deep.members(expectedChanges({}, orderFields(order)));
    // Spelled out, so the comparison above cannot be vacuous: money as numbers, dates as ISO text, lines by id.
    const [first, second] = order.lines as { salesOrderDetailId: number }[];
    expect(entry.changes).to.deep.include.members([
      { field: 'salesOrderNumber', new: `SO${id}` },
      { field: 'comment', new: 'audited' },
      { field: 'freight', new: 3.5 },
      { field: 'revisionNumber', new: 1 },
      { field: 'orderDate', new: order.orderDate },
      { field: `lines[${first.salesOrderDetailId}].orderQty`, new: 2 },
      { field: `lines[${second.salesOrderDetailId}].unitPriceDiscount`, new: 0.25 },
      { field: `lines[${second.salesOrderDetailId}].lineTotal`, new: 7.5 },
    ]);
    expect(entry.changes.every((c) => !('old' in c))).to.equal(true);
  });

  it('PUT records the fields it changed, the totals that moved and the revision; PATCH only what it named', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1 }]);
    const order = await read(server, path(id));
    const put = { status: 2, onlineOrderFlag: true, accountNumber: order.accountNumber, dueDate: order.dueDate, comment: 'put', taxAmt: 1.25, freight: 0 };
    const entry = await expectAudited(id, 'update', async () => expectOk(await server.call(path(id), { method: 'PUT', body: put })));
    expect(entry.changes).to.have.deep.members([
      { field: 'status', old: 1, new: 2 },
      { field: 'comment', new: 'put' },
      { field: 'taxAmt', old: 0, new: 1.25 },
      { field: 'totalDue', old: order.totalDue, new: (order.totalDue as number) + 1.25 },
      { field: 'revisionNumber', old: 1, new: 2 },
    ]);
    const patched = await expectAudited(id, 'patch', async () =>
      expectOk(await server.call(path(id), { method: 'PATCH', body: { comment: null, shipDate: '2031-05-06T00:00:00Z' }, headers: mergePatch })));
    expect(patched.changes).to.have.deep.members([
      { field: 'comment', old: 'put' },
      { field: 'shipDate', new: '2031-05-06T00:00:00.000Z' },
      { field: 'revisionNumber', old: 2, new: 3 },
    ]);
  });

  it('each line write records the line\'s fields by id and the order\'s totals and revision', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1 }]);
    let lineId = 0;
    const created = await expectAudited(id, 'line-create', async () => {
      lineId = expectOk(await addLine(server, id, { productId: other.id, orderQty: 2, unitPrice: 4 }), 201).result.salesOrderDetailId;
    });
    expect(created.changes.map((c) => c.field)).to.have.members([
      `lines[${lineId}].productId`, `lines[${lineId}].orderQty`, `lines[${lineId}].unitPrice`, `lines[${lineId}].unitPriceDiscount`,
      `lines[${lineId}].lineTotal`, 'subTotal', 'totalDue', 'revisionNumber',
    ]);
    const line = `${path(id)}/detail/${lineId}`;
    const updated = await expectAudited(id, 'line-update', async () =>
      expectOk(await server.call(line, { method: 'PUT', body: { productId: other.id, orderQty: 3, unitPrice: 4 } })));
    expect(updated.changes).to.deep.include.members([
      { field: `lines[${lineId}].orderQty`, old: 2, new: 3 },
      { field: `lines[${lineId}].lineTotal`, old: 8, new: 12 },
    ]);
    expect(updated.changes.map((c) => c.field)).to.have.members([`lines[${lineId}].orderQty`, `lines[${lineId}].lineTotal`, 'subTotal', 'totalDue', 'revisionNumber']);
    const patched = await expectAudited(id, 'line-patch', async () =>
      expectOk(await server.call(line, { method: 'PATCH', body: { unitPriceDiscount: 0.5 }, headers: mergePatch })));
    expect(patched.changes).to.deep.include.members([
      { field: `lines[${lineId}].unitPriceDiscount`, old: 0, new: 0.5 },
      { field: `lines[${lineId}].lineTotal`, old: 12, new: 6 },
    ]);
    const deleted = await expectAudited(id, 'line-delete', async () => expectOk(await server.call(line, { method: 'DELETE' })));
    expect(deleted.changes).to.deep.include.members([
      { field: `lines[${lineId}].productId`, old: other.id },
      { field: `lines[${lineId}].lineTotal`, old: 6 },
    ]);
    expect(deleted.changes.filter((c) => c.field.startsWith('lines[')).every((c) => !('new' in c))).to.equal(true);
  });

  it('DELETE records every field of the order and its lines, old values only; the history stays for the administrator', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 4 }], { purchaseOrderNumber: 'PO-DEL' });
    const order = await read(server, path(id));
    expectOk(await server.call(path(id), { method: 'DELETE' }));
    const entries = await history(server, path(id));
    expect(entries.map((e) => e.operation)).to.deep.equal(['delete', 'create']);
    expect(entries[0].changes).to.have.deep.members(expectedChanges(orderFields(order), {}));
    expect(entries[0].changes).to.deep.include({ field: 'purchaseOrderNumber', old: 'PO-DEL' });
  });

  it('a write that fails leaves no entry: 400, 409 stale revision, 404, a refused line', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1 }]);
    const count = await auditCount(server);
    const body = { status: 1, onlineOrderFlag: true };
    expectError(await server.call(path(id), { method: 'PUT', body: { ...body, status: 99 } }), 400, 'SalesOrder_InvalidStatus', 'status');
    expectError(await server.call(path(id), { method: 'PUT', body: { ...body, revisionNumber: 7 } }), 409, 'Entity_Concurrency', 'revisionNumber');
    expectError(await server.call(path(id), { method: 'PATCH', body: { comment: 'x', revisionNumber: 7 }, headers: mergePatch }), 409, 'Entity_Concurrency', 'revisionNumber');
    expectError(await server.call(path(2_000_000_000), { method: 'PUT', body }), 404, 'Entity_NotFound');
    expectError(await server.call(path(2_000_000_000), { method: 'DELETE' }), 404, 'Entity_NotFound');
    expectError(await addLine(server, id, { productId: inactive.id, orderQty: 1 }), 400, 'SalesOrder_InvalidProduct', 'productId');
    expectError(await addLine(server, id, { productId: product.id, orderQty: 1, revisionNumber: 9 }), 409, 'Entity_Concurrency', 'revisionNumber');
    expectError(await server.call(`${path(id)}/detail/2000000000`, { method: 'DELETE' }), 404, 'Entity_NotFound');
    expectError(await server.call('/sales-order', { method: 'POST', body: { ...body, customerId: 11000, lines: [{ productId: inactive.id, orderQty: 1 }] } }),
      400, 'SalesOrder_InvalidProduct', 'lines[0].productId');
    expect(await auditCount(server)).to.equal(count);
  });

  it('a write rolled back after its work (a total beyond the money range) leaves no entry', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1 }]);
    const count = await auditCount(server);
    // The line is stored and audited inside the transaction; the order's total then overflows and it all rolls back.
    // The line alone fits the money range (its check passes before the transaction); the order's subTotal does not.
    expectError(await addLine(server, id, { productId: product.id, orderQty: 1, unitPrice: 99_999_999_999 }), 400, 'Amount_TooLarge', 'subTotal');
    expect(await auditCount(server)).to.equal(count);
    expect(await history(server, path(id))).to.have.length(1);
  });

  it('concurrent PATCHes are each audited once, their revisions in sequence', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1 }]);
    const n = 12;
    const replies = await Promise.all(Array.from({ length: n }, (_, i) =>
      server.call(path(id), { method: 'PATCH', body: { comment: `writer ${i}` }, headers: mergePatch })));
    // Merged inside the write, into the row whose revision it checks: none loses to another, none is a 409.
    for (const reply of replies) expect(reply.status, reply.text).to.equal(200);
    const written = n;
    const patches = (await history(server, path(id))).filter((e) => e.operation === 'patch').reverse();
    expect(patches).to.have.length(written);
    expect((await read(server, path(id))).revisionNumber).to.equal(written + 1);
    patches.forEach((entry, i) => {
      expect(entry.changes).to.deep.include({ field: 'revisionNumber', old: i + 1, new: i + 2 });
    });
    const comments = patches.map((e) => e.changes.find((c) => c.field === 'comment')?.new);
    expect(new Set(comments).size).to.equal(written);
    // Each entry's old comment is the one the entry before it wrote.
    patches.slice(1).forEach((entry, i) => expect(entry.changes.find((c) => c.field === 'comment')?.old).to.equal(comments[i]));
  });

  it('concurrent PUTs without a revision all succeed, each audited once, old and new values chained', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1 }]);
    const n = 12;
    const replies = await Promise.all(Array.from({ length: n }, (_, i) =>
      server.call(path(id), { method: 'PUT', body: { status: 1 + (i % 5), onlineOrderFlag: i % 2 === 0, comment: `writer ${i}`, freight: i } })));
    for (const reply of replies) expect(reply.status, reply.text).to.equal(200);
    expect(replies.map((r) => r.body.result.revisionNumber).sort((a: number, b: number) => a - b)).to.deep.equal(Array.from({ length: n }, (_, i) => i + 2));
    const updates = (await history(server, path(id))).filter((e) => e.operation === 'update').reverse();
    expect(updates).to.have.length(n);
    updates.forEach((entry, i) => expect(entry.changes).to.deep.include({ field: 'revisionNumber', old: i + 1, new: i + 2 }));
    // Each entry's old values are the ones the entry before it wrote: no write slipped between a read and its update.
    const comments = updates.map((e) => e.changes.find((c) => c.field === 'comment')?.new);
    updates.slice(1).forEach((entry, i) => expect(entry.changes.find((c) => c.field === 'comment')?.old).to.equal(comments[i]));
    const order = await read(server, path(id)) as { comment: string; subTotal: number; taxAmt: number; freight: number; totalDue: number };
    expect(order.comment).to.equal(comments[n - 1]);
    expect(order.totalDue).to.be.closeTo(order.subTotal + order.taxAmt + order.freight, 1e-6);
  });

  it('concurrent PUTs with the same revision: exactly one succeeds and is audited, the others are 409 and write nothing', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1 }]);
    const count = await auditCount(server);
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      server.call(path(id), { method: 'PUT', body: { status: 2, onlineOrderFlag: false, comment: `writer ${i}`, revisionNumber: 1 } })));
    expect(replies.filter((r) => r.status === 200)).to.have.length(1);
    for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 409, 'Entity_Concurrency', 'revisionNumber');
    expect(await auditCount(server)).to.equal(count + 1);
    expect((await read(server, path(id))).revisionNumber).to.equal(2);
  });

  it('a write made outside a request (a job, the CLI) records the user "system"', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1 }]);
    const services = server.services as unknown as { salesOrder: { patch(id: number, data: object): Promise<{ result?: unknown }> } };
    const output = await withErrorScope(() => services.salesOrder.patch(id, { comment: 'by a job' }));
    expect(output.result).to.not.equal(undefined);
    const entry = await latest(server, path(id));
    expect(entry).to.deep.include({ user: 'system', operation: 'patch' });
  });

  it('a job\'s bulk delete (purgeCancelled) records a delete of each order it removes, with its lines, by "system"', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 3 }], { status: 6 });
    const order = await read(server, path(id));
    const services = server.services as unknown as { salesOrder: { purgeCancelled(before: Date): Promise<{ result?: number }> } };
    const purged = await withErrorScope(() => services.salesOrder.purgeCancelled(new Date(Date.now() + 86_400_000)));
    expect(purged.result).to.be.greaterThan(0);
    const entries = await history(server, path(id));
    expect(entries.map((e) => [e.operation, e.user])).to.deep.equal([['delete', 'system'], ['create', 'tester']]);
    expect(entries[0].changes).to.have.deep.members(expectedChanges(orderFields(order), {}));
  });
});
