import { expect } from 'chai';
import { LookupProxy } from 'restlayer/client';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser } from '../support/users.js';
import { clientFor, recordingFetch } from './support.js';
import { describeStores } from '../support/stores.js';

const codes = (output: { messages: { code: string }[] }) => output.messages.map((m) => m.code);
/** Amounts compared in ten-thousandths (integers), so the test does no binary floating-point sums either. */
const units = (value: number) => Math.round(value * 10_000);

/** The line operations of ISalesOrderService through the proxy, against a real server (SQLite and PostgreSQL). */
describeStores('client: order lines through SalesOrderProxy', () => {
  let server: TestServer;
  let proxy: SalesOrderProxy;
  const recorder = recordingFetch();
  let productIds: number[];
  let listPrice: Map<number, number>;
  let order: { id: number; revision: number };

  before(async () => {
    server = await startTestServer({ config: FAST_HASH });
    await addUser(server, 'lin', 'lin-password-1');
    const client = clientFor(server, { Authorization: true }, { fetch: recorder.fetch });
    proxy = new SalesOrderProxy(client);
    expect((await client.login('lin', 'lin-password-1')).messages).to.deep.equal([]);
    const table = (await new LookupProxy(client).read('product')).result!.table.data.filter((p) => p.isActive);
    productIds = table.map((p) => Number(p.id));
    listPrice = new Map(table.map((p) => [Number(p.id), Number(p.attributes.listPrice)]));
    const created = await proxy.create({
      customerId: 11000, status: 1, onlineOrderFlag: true, dueDate: new Date('2030-02-01T00:00:00Z'),
      lines: [{ productId: productIds[0], orderQty: 2 }],
    });
    expect(codes(created)).to.deep.equal([]);
    order = { id: created.result!.salesOrderId, revision: created.result!.revisionNumber };
  });
  after(() => server.stop());

  it('readLines: the lines of a sample order, whose line totals sum to its subtotal', async () => {
    const lines = await proxy.readLines(43659);
    expect(codes(lines)).to.deep.equal([]);
    expect(lines.result!.length).to.be.greaterThan(0);
    const read = (await proxy.read(43659)).result!;
    expect(read.lines).to.deep.equal(lines.result);
    expect(lines.result!.reduce((sum, l) => sum + units(l.lineTotal), 0)).to.equal(units(read.subTotal));
    expect(recorder.to('/sales-order/43659/detail').at(-1)!.method).to.equal('GET');
  });

  it('createLine: POST answers the line and the order\'s new totals and revision; the price defaults to the list price', async () => {
    const output = await proxy.createLine(order.id, { productId: productIds[1], orderQty: 3, unitPriceDiscount: 0.1, revisionNumber: order.revision });
    expect(codes(output)).to.deep.equal([]);
    const result = output.result!;
    const sent = recorder.to(`/sales-order/${order.id}/detail`).at(-1)!;
    expect(sent.status).to.equal(201);
    // A create: sent with an Idempotency-Key, so the client may repeat it after a lost answer without a second line.
    expect(sent.headers.get('Idempotency-Key')).to.be.a('string').with.length.greaterThan(0);
    expect(result.salesOrderDetailId).to.be.a('number');
    expect(result.revisionNumber).to.equal(order.revision + 1);
    order.revision = result.revisionNumber;
    const line = (await proxy.readLine(order.id, result.salesOrderDetailId!)).result!;
    expect(line).to.deep.include({ productId: productIds[1], orderQty: 3, unitPriceDiscount: 0.1, unitPrice: listPrice.get(productIds[1]) });
    expect(line.lineTotal).to.equal(result.lineTotal);
    const read = (await proxy.read(order.id)).result!;
    expect(read.subTotal).to.equal(result.subTotal);
    expect(read.totalDue).to.equal(result.totalDue);
    expect(read.revisionNumber).to.equal(result.revisionNumber);
  });

  it('patchLine: a merge patch changes only the fields it names', async () => {
    const [first] = (await proxy.readLines(order.id)).result!;
    const output = await proxy.patchLine(order.id, first.salesOrderDetailId, { orderQty: 5, revisionNumber: order.revision });
    expect(codes(output)).to.deep.equal([]);
    const sent = recorder.sent.at(-1)!;
    expect(sent.method).to.equal('PATCH');
    expect(sent.headers.get('Content-Type')).to.equal('application/merge-patch+json');
    expect(JSON.parse(sent.body!)).to.deep.equal({ orderQty: 5, revisionNumber: order.revision });
    order.revision = output.result!.revisionNumber;
    const after = (await proxy.readLine(order.id, first.salesOrderDetailId)).result!;
    expect(after).to.deep.equal({ ...first, orderQty: 5, lineTotal: output.result!.lineTotal });
  });

  it('updateLine: PUT replaces the line; a stale revision is an Output with Entity_Concurrency and writes nothing', async () => {
    const [first] = (await proxy.readLines(order.id)).result!;
    const output = await proxy.updateLine(order.id, first.salesOrderDetailId, { productId: productIds[2], orderQty: 1, unitPrice: 10.125, revisionNumber: order.revision });
    expect(codes(output)).to.deep.equal([]);
    expect(recorder.sent.at(-1)!.method).to.equal('PUT');
    expect(output.result!.lineTotal).to.equal(10.125);
    const stale = await proxy.updateLine(order.id, first.salesOrderDetailId, { productId: productIds[2], orderQty: 9, revisionNumber: order.revision });
    expect(stale.result).to.equal(undefined);
    expect(codes(stale)).to.deep.equal(['Entity_Concurrency']);
    order.revision = output.result!.revisionNumber;
    expect((await proxy.readLine(order.id, first.salesOrderDetailId)).result!.orderQty).to.equal(1);
  });

  it('readLine: a line of another order is Entity_NotFound, as an unknown one', async () => {
    const [other] = (await proxy.readLines(43659)).result!;
    expect(codes(await proxy.readLine(order.id, other.salesOrderDetailId))).to.deep.equal(['Entity_NotFound']);
    expect(codes(await proxy.readLine(order.id, 999_999_999))).to.deep.equal(['Entity_NotFound']);
  });

  it('deleteLine: the order\'s revision goes as the query parameter; a stale one writes nothing', async () => {
    const lines = (await proxy.readLines(order.id)).result!;
    const gone = lines[0];
    const stale = await proxy.deleteLine(order.id, gone.salesOrderDetailId, order.revision - 1);
    expect(codes(stale)).to.deep.equal(['Entity_Concurrency']);
    expect(recorder.sent.at(-1)!.url.searchParams.get('revisionNumber')).to.equal(String(order.revision - 1));
    expect((await proxy.readLines(order.id)).result).to.have.length(lines.length);

    const output = await proxy.deleteLine(order.id, gone.salesOrderDetailId, order.revision);
    expect(codes(output)).to.deep.equal([]);
    const sent = recorder.sent.at(-1)!;
    expect(sent.method).to.equal('DELETE');
    expect(sent.url.searchParams.get('revisionNumber')).to.equal(String(order.revision));
    expect(sent.body).to.equal(undefined);
    expect(output.result!.revisionNumber).to.equal(order.revision + 1);
    const read = (await proxy.read(order.id)).result!;
    expect(read.lines.map((l) => l.salesOrderDetailId)).to.deep.equal(lines.slice(1).map((l) => l.salesOrderDetailId));
    expect(units(read.subTotal)).to.equal(read.lines.reduce((sum, l) => sum + units(l.lineTotal), 0));
    expect(read.subTotal).to.equal(output.result!.subTotal);
    expect(read.totalDue).to.equal(output.result!.totalDue);
    // Without a revision the delete is not guarded.
    const last = read.lines[0];
    expect(codes(await proxy.deleteLine(order.id, last.salesOrderDetailId))).to.deep.equal([]);
    expect(recorder.sent.at(-1)!.url.search).to.equal('');
    const empty = (await proxy.read(order.id)).result!;
    expect(empty.lines).to.deep.equal([]);
    expect(empty.subTotal).to.equal(0);
  });

  it('delete: the record\'s revision goes as the query parameter too; a stale one deletes nothing', async () => {
    const { revisionNumber } = (await proxy.read(order.id)).result!;
    expect(codes(await proxy.delete(order.id, revisionNumber - 1))).to.deep.equal(['Entity_Concurrency']);
    expect(recorder.sent.at(-1)!.url.searchParams.get('revisionNumber')).to.equal(String(revisionNumber - 1));
    expect(codes(await proxy.read(order.id))).to.deep.equal([]);
    expect(codes(await proxy.delete(order.id, revisionNumber))).to.deep.equal([]);
    expect(codes(await proxy.read(order.id))).to.deep.equal(['Entity_NotFound']);
  });
});
