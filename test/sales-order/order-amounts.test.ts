import { expect } from 'chai';
import { expectError, expectOk, listOrders, readOrder } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { type WireProduct, addLine, orderWith, someProducts } from './lines-support.js';
import { describeStores } from '../support/stores.js';

const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

describeStores('order amounts: exact decimals (contract parts 3 "Amounts" and 9)', () => {
  let server: TestServer;
  let product: WireProduct;
  before(async () => {
    server = await startTestServer();
    ({ active: product } = await someProducts(server));
  });
  after(() => server.stop());

  it('lines of 0.1, 0.2 and 0.3 total exactly 0.6, and the criterion totalDue=0.6 finds the order', async () => {
    const id = await orderWith(server, [0.1, 0.2, 0.3].map((unitPrice) => ({ productId: product.id, orderQty: 1, unitPrice })));
    const order = await readOrder(server, id);
    expect(order).to.include({ subTotal: 0.6, taxAmt: 0, freight: 0, totalDue: 0.6 });
    expect((order.lines as { lineTotal: number }[]).map((l) => l.lineTotal)).to.deep.equal([0.1, 0.2, 0.3]);
    const found = await listOrders(server, 'totalDue=0.6');
    expect(found.map((o) => o.salesOrderId)).to.include(id);
    expect(found.find((o) => o.salesOrderId === id)!.totalDue).to.equal(0.6);
    expect((await listOrders(server, 'totalDue=0.6&totalDue=0.6')).map((o) => o.salesOrderId)).to.include(id);
    expect((await listOrders(server, 'totalDue.operator=GT&totalDue=0.6&take=5&sort[0].fieldName=totalDue')).map((o) => o.salesOrderId)).to.not.include(id);
  });

  it('the same sum reached by adding lines one by one is exactly 0.6 as well', async () => {
    const id = await orderWith(server, []);
    let last: Record<string, unknown> = {};
    for (const unitPrice of [0.1, 0.2, 0.3]) last = expectOk(await addLine(server, id, { productId: product.id, orderQty: 1, unitPrice }), 201).result;
    expect(last).to.include({ subTotal: 0.6, totalDue: 0.6, revisionNumber: 4 });
  });

  // orderQty × unitPrice × (1 − discount), rounded half away from zero: binary floating point gets these wrong
  // (0.0003 × 0.5 is 0.000149999… as a double, which Math.round would take down to 0.0001).
  const cases: [number, number, number, number][] = [
    [1, 0.0001, 0.5, 0.0001],
    [1, 0.0003, 0.5, 0.0002],
    [3, 0.0005, 0.9, 0.0002],
    [1, 1.0001, 0.5, 0.5001],
    [7, 0.0715, 0.5, 0.2503],
    [1, 0.0001, 0.4, 0.0001],
    [1, 0.0001, 0.6, 0],
    [3, 19.99, 0.15, 50.9745],
    [32767, 3578.27, 0.0001, 117237448.1727],
    [32767, 3578.27, 0.0003, 117213998.3381],
  ];
  for (const [orderQty, unitPrice, unitPriceDiscount, lineTotal] of cases) {
    it(`${orderQty} × ${unitPrice} × (1 − ${unitPriceDiscount}) = ${lineTotal} (half away from zero, 4 digits)`, async () => {
      const id = await orderWith(server, []);
      const result = expectOk(await addLine(server, id, { productId: product.id, orderQty, unitPrice, unitPriceDiscount }), 201).result;
      expect(result).to.include({ lineTotal, subTotal: lineTotal, totalDue: lineTotal });
      expect(((await readOrder(server, id)).lines as { lineTotal: number }[])[0].lineTotal).to.equal(lineTotal);
    });
  }

  it('taxAmt and freight are written by create, PUT and PATCH, and totalDue follows', async () => {
    const id = await orderWith(server, [{ productId: product.id, orderQty: 1, unitPrice: 100.1 }], { taxAmt: 8.008, freight: 2.5025 });
    expect(await readOrder(server, id)).to.include({ subTotal: 100.1, taxAmt: 8.008, freight: 2.5025, totalDue: 110.6105 });
    const put = expectOk(await server.call(`/sales-order/${id}`, { method: 'PUT', body: { status: 1, onlineOrderFlag: true, taxAmt: 0.1, freight: 0.2, revisionNumber: 1 } }));
    expect(put.result.revisionNumber).to.equal(2);
    expect(await readOrder(server, id)).to.include({ subTotal: 100.1, taxAmt: 0.1, freight: 0.2, totalDue: 100.4 });
    expectOk(await server.call(`/sales-order/${id}`, { method: 'PATCH', body: { freight: 0.3 }, headers: mergePatch }));
    expect(await readOrder(server, id)).to.include({ taxAmt: 0.1, freight: 0.3, totalDue: 100.5, revisionNumber: 3 });
    // null clears to the default, 0.
    expectOk(await server.call(`/sales-order/${id}`, { method: 'PATCH', body: { taxAmt: null }, headers: mergePatch }));
    expect(await readOrder(server, id)).to.include({ taxAmt: 0, freight: 0.3, totalDue: 100.4 });
    expect((await listOrders(server, 'totalDue=100.4')).map((o) => o.salesOrderId)).to.include(id);
  });

  it('refuses taxAmt and freight that are negative, have more than 4 fractional digits or are not numbers', async () => {
    const base = { customerId: 11000, status: 1, onlineOrderFlag: true };
    for (const [property, value] of [['taxAmt', -1], ['freight', 0.00001], ['taxAmt', '1.5'], ['freight', 1e300]] as const) {
      const reply = await server.call('/sales-order', { method: 'POST', body: { ...base, [property]: value } });
      expect(reply.status, reply.text).to.equal(400);
      expect(reply.body.messages.map((m) => m.property)).to.deep.equal([property]);
    }
    expectError(await server.call('/sales-order/43659', { method: 'PATCH', body: { taxAmt: -0.5 }, headers: mergePatch }), 400, 'Input_OutOfRange', 'taxAmt');
  });
});
