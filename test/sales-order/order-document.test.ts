import { expect } from 'chai';
import { Decimal, sql, withErrorScope } from 'restlayer';
import type { AppServices } from '../../services/index.js';
import { expectError, expectErrors, expectOk, readOrder } from '../support/api.js';
import { salesDb } from '../support/sales-db.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { type WireProduct, addLine, countRows, inconsistentOrders, orderWith, someProducts } from './lines-support.js';
import { describeStores } from '../support/stores.js';

const PARALLEL = 20;
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

describeStores('sales orders as documents (contract part 9; lib/documents)', () => {
  let server: TestServer;
  let active: WireProduct;
  let inactive: WireProduct;
  before(async () => {
    server = await startTestServer();
    ({ active, inactive } = await someProducts(server));
  });
  after(() => server.stop());

  const create = (lines: Record<string, unknown>[]) =>
    server.call('/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true, lines } });

  it('creates an order with all of its lines at once, totals from them', async () => {
    const reply = await create([{ productId: active.id, orderQty: 2, unitPrice: 1.25 }, { productId: active.id, orderQty: 1 }]);
    const id = expectOk(reply, 201).result.salesOrderId as number;
    const order = await readOrder(server, id);
    expect(order.lines).to.have.length(2);
    const subTotal = new Decimal(2.5).plus(active.attributes.listPrice).toNumber();
    expect(order).to.include({ subTotal, totalDue: subTotal, revisionNumber: 1 });
  });

  it('refuses the whole document for one bad line, on lines[2].orderQty, and stores nothing', async () => {
    const before = await countRows(server);
    const good = { productId: active.id, orderQty: 1 };
    expectError(await create([good, good, { productId: active.id, orderQty: 0 }]), 400, 'Input_OutOfRange', 'lines[2].orderQty');
    expectError(await create([good, { productId: inactive.id, orderQty: 1 }, good]), 400, 'SalesOrder_InvalidProduct', 'lines[1].productId');
    const several = await create([{ productId: 123456, orderQty: 1 }, good, { productId: inactive.id, orderQty: 1 }]);
    expect(several.status).to.equal(400);
    expect(several.body.messages.map((m) => m.property)).to.have.members(['lines[0].productId', 'lines[2].productId']);
    expectError(await create([good, { productId: active.id, orderQty: 32767, unitPrice: 99999999999 }]), 400, 'Amount_TooLarge', 'lines[1].unitPrice');
    const big = { productId: active.id, orderQty: 1, unitPrice: 60000000000 };
    expectError(await create([big, big]), 400, 'Amount_TooLarge', 'subTotal');
    expectError(await create([good, { productId: active.id, orderQty: 1, unitPriceDiscount: 1 }]), 400, 'Input_OutOfRange', 'lines[1].unitPriceDiscount');
    expect(await countRows(server)).to.deep.equal(before);
  });

  it(`${PARALLEL} concurrent line adds: each one counts, subTotal = Σ lineTotal exactly, revision advanced ${PARALLEL}`, async () => {
    const id = await orderWith(server, []);
    // 0.1001, 0.2002, …: amounts whose binary sums drift, made from decimal text.
    const prices = Array.from({ length: PARALLEL }, (_, i) => new Decimal(i + 1).times('0.1001').toNumber());
    const replies = await Promise.all(prices.map((unitPrice) => addLine(server, id, { productId: active.id, orderQty: 3, unitPrice, unitPriceDiscount: 0.3333 })));
    for (const r of replies) expectOk(r, 201);
    expect(replies.map((r) => r.body.result.revisionNumber as number).sort((a, b) => a - b))
      .to.deep.equal(Array.from({ length: PARALLEL }, (_, i) => i + 2));
    const order = await readOrder(server, id);
    const lines = order.lines as { lineTotal: number }[];
    expect(lines).to.have.length(PARALLEL);
    const sum = lines.reduce((s, l) => s.plus(l.lineTotal), new Decimal(0)).toNumber();
    expect(order).to.include({ subTotal: sum, totalDue: sum, revisionNumber: 1 + PARALLEL });
    expect(await inconsistentOrders(server)).to.deep.equal([]);
  });

  it('reads taken while lines are added always show totals that follow from the lines they show', async () => {
    const id = await orderWith(server, []);
    let adding = true;
    const reads: Record<string, unknown>[] = [];
    const reader = (async () => {
      while (adding) reads.push(await readOrder(server, id));
    })();
    await Promise.all(Array.from({ length: PARALLEL }, (_, i) => addLine(server, id, { productId: active.id, orderQty: 1, unitPrice: new Decimal(i).times('0.0101').plus('0.1').toNumber() })));
    adding = false;
    await reader;
    reads.push(await readOrder(server, id));
    for (const order of reads) {
      const lines = order.lines as { lineTotal: number }[];
      const sum = lines.reduce((s, l) => s.plus(l.lineTotal), new Decimal(0)).toNumber();
      expect(order, JSON.stringify(order)).to.include({ subTotal: sum, totalDue: sum, revisionNumber: 1 + lines.length });
    }
    expect((reads.at(-1)!.lines as unknown[]).length).to.equal(PARALLEL);
  });

  it(`${PARALLEL} concurrent line adds with one revisionNumber: exactly one wins, the others are 409 and write nothing`, async () => {
    const id = await orderWith(server, []);
    const replies = await Promise.all(Array.from({ length: PARALLEL }, () => addLine(server, id, { productId: active.id, orderQty: 1, revisionNumber: 1 })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201), statuses.join()).to.have.length(1);
    for (const r of replies.filter((x) => x.status !== 201)) expectErrors(r, 409, ['Entity_Concurrency']);
    const order = await readOrder(server, id);
    expect(order.lines).to.have.length(1);
    expect(order).to.include({ revisionNumber: 2, subTotal: active.attributes.listPrice });
  });

  it('a stale order revision on any line write is a 409 Entity_Concurrency on revisionNumber, and nothing is written', async () => {
    const id = await orderWith(server, [{ productId: active.id, orderQty: 1, unitPrice: 5 }]);
    expectOk(await addLine(server, id, { productId: active.id, orderQty: 1, unitPrice: 7, revisionNumber: 1 }), 201);
    const before = await readOrder(server, id);
    const [line] = before.lines as { salesOrderDetailId: number }[];
    const path = `/sales-order/${id}/detail/${line.salesOrderDetailId}`;
    const stale = [
      await addLine(server, id, { productId: active.id, orderQty: 1, revisionNumber: 1 }),
      await server.call(path, { method: 'PUT', body: { productId: active.id, orderQty: 9, revisionNumber: 1 } }),
      await server.call(path, { method: 'PATCH', body: { orderQty: 9, revisionNumber: 1 }, headers: mergePatch }),
      await server.call(`${path}?revisionNumber=1`, { method: 'DELETE' }),
      await server.call(`${path}?RevisionNumber=1`, { method: 'DELETE' }),
    ];
    for (const reply of stale) {
      const m = expectError(reply, 409, 'Entity_Concurrency', 'revisionNumber');
      expect(m.message).to.contain(`Sales order ${id}`);
    }
    expect(await readOrder(server, id)).to.deep.equal(before);
    // The current revision is accepted.
    expectOk(await server.call(`${path}?revisionNumber=2`, { method: 'DELETE' }));
  });

  it('DELETE of an order marks it deleted and keeps its lines (contract part 13), which no route answers any more', async () => {
    const id = await orderWith(server, [{ productId: active.id, orderQty: 1 }, { productId: active.id, orderQty: 2 }]);
    const db = salesDb(server.infrastructure.storage);
    const count = async () => (await db.selectFrom('sales_order_detail').select('sales_order_detail_id').where('sales_order_id', '=', id).execute()).length;
    expect(await count()).to.equal(2);
    expectOk(await server.call(`/sales-order/${id}`, { method: 'DELETE' }));
    expect(await count()).to.equal(2);
    expectError(await server.call(`/sales-order/${id}/detail`), 404, 'Entity_NotFound');
  });

  it('purgeCancelled (not exposed over HTTP) deletes the cancelled orders not deleted yet, their lines kept', async () => {
    const id = await orderWith(server, [{ productId: active.id, orderQty: 1 }], { status: 6 });
    const db = salesDb(server.infrastructure.storage);
    const before = await countRows(server);
    const cancelled = await db.selectFrom('sales_order').select('sales_order_id').where('status', '=', 6).where(sql.ref('deleted_at'), 'is', null).execute();
    const service = (server.services as unknown as AppServices).salesOrder;
    const purged = await withErrorScope(() => service.purgeCancelled(new Date(Date.now() + 86_400_000)));
    expect(purged.result).to.equal(cancelled.length);
    expect(await countRows(server)).to.deep.equal(before);
    const live = await db.selectFrom('sales_order').select('sales_order_id').where('status', '=', 6).where(sql.ref('deleted_at'), 'is', null).execute();
    expect(live).to.deep.equal([]);
    // Run again, it finds none: the deleted ones are not deleted twice.
    expect((await withErrorScope(() => service.purgeCancelled(new Date(Date.now() + 86_400_000)))).result).to.equal(0);
    expectError(await server.call(`/sales-order/${id}`), 404, 'Entity_NotFound');
    expect(await inconsistentOrders(server)).to.deep.equal([]);
  });

  it('purgeCancelled while orders are reopened: an order reopened (200) is never deleted; each is either reopened or deleted', async () => {
    const ids = [];
    for (let i = 0; i < 8; i++) ids.push(await orderWith(server, [{ productId: active.id, orderQty: 1 }], { status: 6 }));
    const service = (server.services as unknown as AppServices).salesOrder;
    // Sent together: a reopening that lands between the purge's list and its delete of that order must win over it.
    const [purged, ...reopened] = await Promise.all([
      withErrorScope(() => service.purgeCancelled(new Date(Date.now() + 86_400_000))),
      ...ids.map((id) => server.call(`/sales-order/${id}`, { method: 'PATCH', body: { status: 1 }, headers: mergePatch })),
    ]);
    expect(purged.messages, JSON.stringify(purged.messages)).to.deep.equal([]);
    for (const [i, id] of ids.entries()) {
      const now = await server.call(`/sales-order/${id}`);
      if (reopened[i].status === 200) expect([now.status, now.body.result?.status], `order ${id} reopened`).to.deep.equal([200, 1]);
      else expect([reopened[i].status, now.status], `order ${id} purged first`).to.deep.equal([404, 404]);
    }
  });
});
