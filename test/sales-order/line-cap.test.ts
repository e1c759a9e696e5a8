import { expect } from 'chai';
import { expectError, expectOk, readOrder } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { type WireProduct, addLine, countRows, inconsistentOrders, someProducts } from './lines-support.js';

/**
 * Issue 37, finding 1 (contract part 9): an order holds at most Documents:MaxLines lines (default 1,000). A create or
 * line write that would pass it is a 400 Document_TooManyLines on `lines`, and nothing is written — also when line
 * writes race at the cap (the document write locks the order first), on every store.
 */
describeStores('order lines are capped at Documents:MaxLines', function () {
  this.timeout(120_000);
  let server: TestServer;
  let product: WireProduct;
  let maxLines: number;
  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
    ({ active: product } = await someProducts(server));
    maxLines = server.config.Documents.MaxLines;
  });
  after(() => server?.stop());

  const linesOf = (n: number) => Array.from({ length: n }, (_, i) => ({ productId: product.id, orderQty: 1 + (i % 7), unitPrice: 1.25 }));
  const create = (n: number) => server.call('/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true, lines: linesOf(n) } });
  const lineCount = async (id: number) => ((await readOrder(server, id)).lines as unknown[]).length;

  it('is 1,000 by default', () => {
    expect(maxLines).to.equal(1_000);
  });

  it('a create one line past the cap is a 400 Document_TooManyLines on lines, and stores nothing', async () => {
    const before = await countRows(server);
    const m = expectError(await create(maxLines + 1), 400, 'Document_TooManyLines', 'lines');
    expect(m.message).to.include(String(maxLines));
    expect(await countRows(server)).to.deep.equal(before);
  });

  it('a create at the cap is stored; one more line is then a 400 on lines, and nothing is written', async () => {
    const reply = await create(maxLines);
    const id = expectOk(reply, 201).result.salesOrderId as number;
    expect(await lineCount(id)).to.equal(maxLines);
    const before = await readOrder(server, id);
    expectError(await addLine(server, id, { productId: product.id, orderQty: 1 }), 400, 'Document_TooManyLines', 'lines');
    const after = await readOrder(server, id);
    expect(after.revisionNumber).to.equal(before.revisionNumber);
    expect((after.lines as unknown[]).length).to.equal(maxLines);
    // Below the cap again, a line may be added.
    const [first] = after.lines as { salesOrderDetailId: number }[];
    expectOk(await server.call(`/sales-order/${id}/detail/${first.salesOrderDetailId}`, { method: 'DELETE' }));
    expectOk(await addLine(server, id, { productId: product.id, orderQty: 1 }), 201);
    expect(await lineCount(id)).to.equal(maxLines);
  });

  it('line writes that change no count (PUT, PATCH, DELETE) still work at the cap', async () => {
    const id = expectOk(await create(maxLines), 201).result.salesOrderId as number;
    const [line] = (await readOrder(server, id)).lines as { salesOrderDetailId: number }[];
    const path = `/sales-order/${id}/detail/${line.salesOrderDetailId}`;
    expectOk(await server.call(path, { method: 'PUT', body: { productId: product.id, orderQty: 9 } }));
    expectOk(await server.call(path, { method: 'PATCH', body: { orderQty: 8 }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
    expectOk(await server.call(path, { method: 'DELETE' }));
    expect(await lineCount(id)).to.equal(maxLines - 1);
  });

  it('line adds racing at one below the cap: exactly one is stored, every other is a 400 on lines, and the totals hold', async () => {
    const id = expectOk(await create(maxLines - 1), 201).result.salesOrderId as number;
    const racers = 8;
    const replies = await Promise.all(Array.from({ length: racers }, () => addLine(server, id, { productId: product.id, orderQty: 1, unitPrice: 0.1 })));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses, replies.map((r) => r.text).join('\n')).to.deep.equal([201, ...Array(racers - 1).fill(400)]);
    for (const r of replies.filter((r) => r.status === 400)) expectError(r, 400, 'Document_TooManyLines', 'lines');
    const order = await readOrder(server, id);
    expect((order.lines as unknown[]).length).to.equal(maxLines);
    expect(order.revisionNumber).to.equal(2);
    expect(await inconsistentOrders(server)).to.deep.equal([]);
  });

  it('reading an order at the cap is bounded: one page of its lines, a few hundred kilobytes at most', async () => {
    const id = expectOk(await create(maxLines), 201).result.salesOrderId as number;
    for (const path of [`/sales-order/${id}`, `/sales-order/${id}/detail`]) {
      const reply = await server.call(path);
      expectOk(reply);
      const lines = (path.endsWith('detail') ? reply.body.result : (reply.body.result as { lines: unknown[] }).lines) as unknown[];
      expect(lines).to.have.length(maxLines);
      // About 150 bytes a line; the 30,000-line order of the audit answered 4.5 MB here.
      expect(Buffer.byteLength(reply.text)).to.be.below(maxLines * 250);
    }
  });
});

describeStores('Documents:MaxLines set in configuration', function () {
  this.timeout(60_000);
  let server: TestServer;
  let product: WireProduct;
  before(async () => {
    server = await startTestServer({ logLevel: 'error', config: { Documents: { MaxLines: 3 } } });
    ({ active: product } = await someProducts(server));
  });
  after(() => server?.stop());

  it('caps creates and line adds at the configured number', async () => {
    const line = { productId: product.id, orderQty: 1 };
    const create = (n: number) => server.call('/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true, lines: Array(n).fill(line) } });
    expectError(await create(4), 400, 'Document_TooManyLines', 'lines');
    const id = expectOk(await create(3), 201).result.salesOrderId as number;
    expectError(await addLine(server, id, line), 400, 'Document_TooManyLines', 'lines');
    const empty = expectOk(await create(0), 201).result.salesOrderId as number;
    for (let i = 0; i < 3; i++) expectOk(await addLine(server, empty, line), 201);
    expectError(await addLine(server, empty, line), 400, 'Document_TooManyLines', 'lines');
  });
});
