import { expect } from 'chai';
import { expectError, expectOk, readOrder } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { someProducts } from '../sales-order/lines-support.js';

/**
 * Issue 37, finding 7 (contract part 3, "Amounts"): an amount's fractional digits are counted as the client sent
 * them, not after JSON.parse rounded the number to a double (1.00000000000000000001 parses as 1). A whole number is
 * checked as sent too (1.0000000000000000001 is not one). Trailing zeros are no digits (1.50000 is 1.5).
 */
describeStores('amounts are checked as sent, before JSON.parse rounds them', function () {
  this.timeout(60_000);
  let server: TestServer;
  let productId: number;
  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
    productId = (await someProducts(server)).active.id;
  });
  after(() => server?.stop());

  const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

  it('PATCH /sales-order/43672 {"freight":1.00000000000000000001} is a 400 Input_TooManyDecimals on freight, and stores nothing', async () => {
    const before = await readOrder(server, 43672);
    const reply = await server.call('/sales-order/43672', { method: 'PATCH', body: '{"freight":1.00000000000000000001}', headers: mergePatch });
    const m = expectError(reply, 400, 'Input_TooManyDecimals', 'freight');
    expect(m.message).to.equal('freight must have at most 4 digits after the decimal point.');
    expect(await readOrder(server, 43672)).to.deep.equal(before);
  });

  it('in any spelling of the key, and in PUT and in the lines of a create, each on its property', async () => {
    const put = await server.call('/sales-order/43672', { method: 'PUT', body: '{"status":1,"onlineOrderFlag":true,"TAXAMT":0.12340000000000000001}' });
    expectError(put, 400, 'Input_TooManyDecimals', 'taxAmt');
    const create = await server.call('/sales-order', {
      method: 'POST',
      body: `{"customerId":11000,"status":1,"onlineOrderFlag":true,"lines":[{"productId":${productId},"orderQty":1},`
        + `{"productId":${productId},"orderQty":1,"unitPrice":2.50000000000000000001,"unitPriceDiscount":0.100000000000000000001}]}`,
    });
    expect(create.status, create.text).to.equal(400);
    expect(create.body.messages.map((m) => [m.code, m.property])).to.have.deep.members([
      ['Input_TooManyDecimals', 'lines[1].unitPrice'], ['Input_TooManyDecimals', 'lines[1].unitPriceDiscount'],
    ]);
  });

  it('a whole number sent with digits JSON.parse drops is not a whole number', async () => {
    const order = expectOk(await server.call('/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true } }), 201);
    const id = order.result.salesOrderId as number;
    const reply = await server.call(`/sales-order/${id}/detail`, { method: 'POST', body: `{"productId":${productId},"orderQty":1.0000000000000000001}` });
    expectError(reply, 400, 'Input_InvalidType', 'orderQty');
  });

  it('takes what loses nothing: trailing zeros, an exponent, 4 digits, and amounts a double holds exactly as written', async () => {
    for (const [text, stored] of [['2.50000', 2.5], ['1.2345', 1.2345], ['12345e-4', 1.2345], ['12345678.9012', 12345678.9012], ['0.1000', 0.1]] as const) {
      const reply = await server.call('/sales-order/43672', { method: 'PATCH', body: `{"freight":${text}}`, headers: mergePatch });
      expectOk(reply);
      expect((await readOrder(server, 43672)).freight, text).to.equal(stored);
    }
  });

  it('an amount with more digits in all than a double holds is out of range, as its value is', async () => {
    const reply = await server.call('/sales-order/43672', { method: 'PATCH', body: '{"freight":123456789012345678901}', headers: mergePatch });
    expectError(reply, 400, 'Input_OutOfRange', 'freight');
  });
});
