import { expect } from 'chai';
import { sampleLines } from '../../services/sales-order/sample-data.js';
import { expectError, expectOk, readOrder } from '../support/api.js';
import { salesDb } from '../support/sales-db.js';
import { sampleOrder } from '../support/sample-oracle.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { type WireProduct, addLine, orderWith, readProducts, someProducts } from './lines-support.js';
import { describeStores } from '../support/stores.js';

const lineFields = ['salesOrderDetailId', 'productId', 'productName', 'orderQty', 'unitPrice', 'unitPriceDiscount', 'lineTotal'];

describeStores('order lines: routes (contract part 9, "Order lines")', () => {
  let server: TestServer;
  let active: WireProduct;
  let other: WireProduct;
  let inactive: WireProduct;
  before(async () => {
    server = await startTestServer();
    ({ active, other, inactive } = await someProducts(server));
  });
  after(() => server.stop());

  it('lookup table product: at least 100 products, some inactive, each with productNumber and listPrice', async () => {
    const products = await readProducts(server);
    expect(products.length).to.be.at.least(100);
    expect(products.filter((p) => !p.isActive).length).to.be.at.least(3);
    for (const p of products) {
      expect(Object.keys(p.attributes)).to.have.members(['productNumber', 'listPrice']);
      expect(p.attributes.listPrice).to.be.a('number');
    }
  });

  it('GET /sales-order/{id}/detail lists a sample order\'s lines by salesOrderDetailId, as the generator made them', async () => {
    const lines = expectOk(await server.call('/sales-order/43659/detail')).result as Record<string, unknown>[];
    const expected = sampleLines(43659, sampleOrder(43659).onlineOrderFlag);
    expect(lines).to.have.length(expected.length);
    const ids = lines.map((l) => l.salesOrderDetailId as number);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    lines.forEach((line, i) => {
      expect(Object.keys(line)).to.have.members(lineFields);
      expect(line).to.include({ productId: expected[i].product_id, orderQty: expected[i].order_qty, unitPrice: expected[i].unit_price, lineTotal: expected[i].line_total });
    });
  });

  it('GET /sales-order/{id} includes the same lines, and totals that follow from them', async () => {
    const order = await readOrder(server, 43660);
    const lines = expectOk(await server.call('/sales-order/43660/detail')).result;
    expect(order.lines).to.deep.equal(lines);
    expect(order.subTotal).to.be.greaterThan(0);
  });

  it('POST adds a line: 201 with the Location of the line, its total and the order\'s new totals and revision', async () => {
    const id = await orderWith(server, []);
    const before = await readOrder(server, id);
    expect(before).to.include({ subTotal: 0, taxAmt: 0, freight: 0, totalDue: 0 });
    expect(before.lines).to.deep.equal([]);
    const reply = await addLine(server, id, { productId: active.id, orderQty: 2 });
    const result = expectOk(reply, 201).result;
    expect(Object.keys(result)).to.have.members(['salesOrderDetailId', 'lineTotal', 'subTotal', 'totalDue', 'revisionNumber']);
    const expectedTotal = Number((active.attributes.listPrice * 2).toFixed(4));
    expect(result).to.include({ lineTotal: expectedTotal, subTotal: expectedTotal, totalDue: expectedTotal, revisionNumber: 2 });
    expect(reply.headers.get('Location')).to.equal(`/sales-order/${id}/detail/${result.salesOrderDetailId}`);
    const line = expectOk(await server.call(`/sales-order/${id}/detail/${result.salesOrderDetailId}`)).result;
    // unitPrice defaults to the product's listPrice, the discount to 0.
    expect(line).to.deep.equal({
      salesOrderDetailId: result.salesOrderDetailId, productId: active.id, productName: active.text, orderQty: 2,
      unitPrice: active.attributes.listPrice, unitPriceDiscount: 0, lineTotal: expectedTotal,
    });
    const after = await readOrder(server, id);
    expect(after).to.include({ subTotal: expectedTotal, totalDue: expectedTotal, revisionNumber: 2 });
    expect(new Date(after.modifiedDate as string).getTime()).to.be.at.least(new Date(before.modifiedDate as string).getTime());
  });

  it('PUT replaces a line (absent unitPrice: the product\'s listPrice), PATCH changes only what it names, DELETE removes it', async () => {
    const id = await orderWith(server, [{ productId: active.id, orderQty: 1, unitPrice: 10 }]);
    const [line] = (await readOrder(server, id)).lines as { salesOrderDetailId: number }[];
    const path = `/sales-order/${id}/detail/${line.salesOrderDetailId}`;

    const put = expectOk(await server.call(path, { method: 'PUT', body: { productId: other.id, orderQty: 3, revisionNumber: 1 } })).result;
    const putTotal = Number((other.attributes.listPrice * 3).toFixed(4));
    expect(put).to.deep.equal({ salesOrderDetailId: line.salesOrderDetailId, lineTotal: putTotal, subTotal: putTotal, totalDue: putTotal, revisionNumber: 2 });

    const patch = await server.call(path, { method: 'PATCH', body: { unitPriceDiscount: 0.5 }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const patched = expectOk(patch).result;
    expect(patched).to.include({ revisionNumber: 3 });
    expect(expectOk(await server.call(path)).result).to.include({ productId: other.id, orderQty: 3, unitPrice: other.attributes.listPrice, unitPriceDiscount: 0.5 });

    const empty = expectOk(await server.call(path, { method: 'PATCH', body: {}, headers: { 'Content-Type': 'application/merge-patch+json' } })).result;
    expect(empty).to.deep.equal(patched);
    // Naming no field but a stale revision (the order's) is a 409, as the order's own PATCH; the current one answers the line.
    expectError(await server.call(path, { method: 'PATCH', body: { revisionNumber: 2 }, headers: { 'Content-Type': 'application/merge-patch+json' } }), 409, 'Entity_Concurrency', 'revisionNumber');
    expect(expectOk(await server.call(path, { method: 'PATCH', body: { revisionNumber: 3 }, headers: { 'Content-Type': 'application/merge-patch+json' } })).result).to.deep.equal(patched);

    const removed = expectOk(await server.call(`${path}?revisionNumber=3`, { method: 'DELETE' })).result;
    expect(removed).to.deep.equal({ subTotal: 0, totalDue: 0, revisionNumber: 4 });
    expectError(await server.call(path), 404, 'Entity_NotFound');
    expect((await readOrder(server, id)).lines).to.deep.equal([]);
  });

  it('a line of another order is a 404 Entity_NotFound, like an unknown id, on every verb; an unknown order too', async () => {
    const mine = await orderWith(server, [{ productId: active.id, orderQty: 1 }]);
    const [line] = (await readOrder(server, 43661)).lines as { salesOrderDetailId: number }[];
    const path = `/sales-order/${mine}/detail/${line.salesOrderDetailId}`;
    const m = expectError(await server.call(path), 404, 'Entity_NotFound');
    expect(m.message).to.equal(`Sales order line with id ${line.salesOrderDetailId} not found.`);
    expectError(await server.call(path, { method: 'PUT', body: { productId: active.id, orderQty: 1 } }), 404, 'Entity_NotFound');
    expectError(await server.call(path, { method: 'PATCH', body: { orderQty: 2 }, headers: { 'Content-Type': 'application/merge-patch+json' } }), 404, 'Entity_NotFound');
    expectError(await server.call(path, { method: 'DELETE' }), 404, 'Entity_NotFound');
    expectError(await server.call(`/sales-order/${mine}/detail/999999999`), 404, 'Entity_NotFound');
    // Nothing changed on either order.
    expect((await readOrder(server, 43661)).lines).to.deep.include(expectOk(await server.call(`/sales-order/43661/detail/${line.salesOrderDetailId}`)).result);
    expect(await readOrder(server, mine)).to.include({ revisionNumber: 1 });
    const unknown = expectError(await server.call('/sales-order/999999999/detail'), 404, 'Entity_NotFound');
    expect(unknown.message).to.equal('Sales order with id 999999999 not found.');
    expectError(await addLine(server, 999999999, { productId: active.id, orderQty: 1 }), 404, 'Entity_NotFound');
    expectError(await server.call('/sales-order/x/detail'), 400, 'Input_InvalidType', '_salesOrderId');
  });

  it('an inactive product is refused on a new line and kept on a line that has it', async () => {
    const id = await orderWith(server, [{ productId: active.id, orderQty: 1 }]);
    expectError(await addLine(server, id, { productId: inactive.id, orderQty: 1 }), 400, 'SalesOrder_InvalidProduct', 'productId');
    expectError(await addLine(server, id, { productId: 123456, orderQty: 1 }), 400, 'SalesOrder_InvalidProduct', 'productId');
    // A line that has the product from before it was retired (written behind the API) keeps it through PUT.
    const { sales_order_detail_id } = await salesDb(server.infrastructure.storage).insertInto('sales_order_detail').values({
      sales_order_id: id, product_id: inactive.id, order_qty: 1, unit_price: 0, unit_price_discount: 0, line_total: 0,
    }).returning('sales_order_detail_id').executeTakeFirstOrThrow();
    const path = `/sales-order/${id}/detail/${sales_order_detail_id}`;
    expectOk(await server.call(path, { method: 'PUT', body: { productId: inactive.id, orderQty: 2, unitPrice: 5 } }));
    expect(expectOk(await server.call(path)).result).to.include({ productId: inactive.id, lineTotal: 10 });
    expectError(await server.call(path, { method: 'PUT', body: { productId: 123456, orderQty: 2 } }), 400, 'SalesOrder_InvalidProduct', 'productId');
  });

  it('refuses bad line input with a message per property, never a 500', async () => {
    const id = await orderWith(server, []);
    const reply = await addLine(server, id, { productId: active.id, orderQty: 0, unitPrice: -1, unitPriceDiscount: 1 });
    expect(reply.status).to.equal(400);
    expect(reply.body.messages.map((m) => m.property)).to.have.members(['orderQty', 'unitPrice', 'unitPriceDiscount']);
    expectError(await addLine(server, id, { productId: active.id, orderQty: 32768 }), 400, 'Input_OutOfRange', 'orderQty');
    expectError(await addLine(server, id, { productId: active.id, orderQty: 1.5 }), 400, 'Input_InvalidType', 'orderQty');
    expect((await addLine(server, id, { productId: active.id, orderQty: 1, unitPrice: 0.00001 })).body.messages[0].property).to.equal('unitPrice');
    expect((await addLine(server, id, { productId: active.id, orderQty: 1, unitPriceDiscount: 0.12345 })).body.messages[0].property).to.equal('unitPriceDiscount');
    expect((await addLine(server, id, { orderQty: 1 })).body.messages[0].property).to.equal('productId');
    expectError(await addLine(server, id, { productId: active.id, orderQty: 1, color: 'red' }), 400, 'Input_UnknownProperty', 'color');
    expectError(await server.call(`/sales-order/${id}/detail/1?revisionNumber=x`, { method: 'DELETE' }), 400, 'Input_InvalidType', 'revisionNumber');
    expectError(await server.call(`/sales-order/${id}/detail/1?other=1`, { method: 'DELETE' }), 400, 'Input_UnknownProperty', 'other');
    expect(await readOrder(server, id)).to.include({ revisionNumber: 1, subTotal: 0 });
  });

  it('a line total or an order total beyond the money range is a 400 on the property, nothing written, never a 500', async () => {
    const id = await orderWith(server, []);
    expectError(await addLine(server, id, { productId: active.id, orderQty: 32767, unitPrice: 99999999999 }), 400, 'Amount_TooLarge', 'unitPrice');
    expectOk(await addLine(server, id, { productId: active.id, orderQty: 1, unitPrice: 60000000000 }), 201);
    expectError(await addLine(server, id, { productId: active.id, orderQty: 1, unitPrice: 60000000000 }), 400, 'Amount_TooLarge', 'subTotal');
    expect(await readOrder(server, id)).to.include({ revisionNumber: 2, subTotal: 60000000000, totalDue: 60000000000 });
    // The refused line was written before the total overflowed: the whole write rolls back, the line with it.
    expect(expectOk(await server.call(`/sales-order/${id}/detail`)).result).to.have.length(1);
    expectError(await server.call(`/sales-order/${id}`, { method: 'PATCH', body: { freight: 50000000000 }, headers: { 'Content-Type': 'application/merge-patch+json' } }),
      400, 'Amount_TooLarge', 'totalDue');
    expect(await readOrder(server, id)).to.include({ revisionNumber: 2, freight: 0 });
  });

  it('the OpenAPI document describes the line routes, with DELETE\'s query parameter revisionNumber', async () => {
    const reply = await server.call('/openapi.json', { token: null });
    const doc = (reply.body.result ?? reply.body) as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
    const line = doc.paths['/sales-order/{salesOrderId}/detail/{salesOrderDetailId}'];
    expect(Object.keys(line)).to.include.members(['get', 'put', 'patch', 'delete']);
    expect(line.delete.parameters!.filter((p) => p.in === 'query').map((p) => p.name)).to.deep.equal(['revisionNumber']);
    expect(Object.keys(doc.paths['/sales-order/{salesOrderId}/detail'])).to.include.members(['get', 'post']);
  });
});
