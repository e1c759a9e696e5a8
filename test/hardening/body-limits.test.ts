import { expect } from 'chai';
import { busiestSalesPerson, scopedUser } from '../access/support.js';
import { expectError, expectOk } from '../support/api.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { countRows, someProducts } from '../sales-order/lines-support.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** `{"k0":0,"k1":0,…}`: `count` properties no route knows. */
const unknownKeys = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}`;

/** A create body of `n` lines, as a client writes it. */
const orderOf = (n: number, productId: number) => JSON.stringify({
  customerId: 11000, status: 1, onlineOrderFlag: true,
  lines: Array.from({ length: n }, (_, i) => ({ productId, orderQty: 1 + (i % 9), unitPrice: 12.5, unitPriceDiscount: 0.1 })),
});

/**
 * How often the server's JSON.parse was given `text` while `fn` ran (the server runs in this process): a body refused
 * by its limit is refused before anything reads it (parse, depth check, repeated-key scan, validation all come after).
 */
async function parsesOf(text: string, fn: () => Promise<Reply>): Promise<{ reply: Reply; parses: number }> {
  const parse = JSON.parse;
  let parses = 0;
  JSON.parse = function (source: string, reviver?: Parameters<typeof parse>[1]) {
    if (source === text) parses++;
    return parse.call(JSON, source, reviver);
  };
  try {
    return { reply: await fn(), parses };
  } finally {
    JSON.parse = parse;
  }
}

/**
 * Issue 37, finding 3 (contract part 2): every route reads a body up to a limit that fits what it takes — a record write
 * far below 1 MB, a document's create sized from Documents:MaxLines — and up to a budget of keys and array elements
 * counted before anything walks the body. Over either: 413 Request_TooLarge, and the body is never parsed.
 */
describeOneStore('per-route body limits and the budget of keys and elements (issue 37, finding 3)', WHY_ONE_STORE.http, function () {
  this.timeout(120_000);
  let server: TestServer;
  let salesPerson: string;
  let ownOrder: number;
  let productId: number;
  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
    const me = await busiestSalesPerson(server);
    salesPerson = await scopedUser(server, 'sam', ['SalesPerson'], { salesPersonId: String(me.id) });
    const own = (await server.call(`/sales-order?take=1&salesPersonId=${me.id}`)).body.result as { salesOrderId: number }[];
    ownOrder = own[0].salesOrderId;
    productId = (await someProducts(server)).active.id;
  });
  after(() => server?.stop());

  const patch = (id: number, body: string, token?: string) =>
    server.call(`/sales-order/${id}`, { method: 'PATCH', body, token, headers: { 'Content-Type': 'application/merge-patch+json' } });

  it("a SalesPerson's PATCH of 90,000 unknown keys (978 KB) is a 413 Request_TooLarge, and is never parsed", async () => {
    const body = unknownKeys(90_000);
    expect(Buffer.byteLength(body)).to.be.above(900_000);
    const { reply, parses } = await parsesOf(body, () => patch(ownOrder, body, salesPerson));
    expectError(reply, 413, 'Request_TooLarge');
    expect(parses).to.equal(0);
  });

  it('a body within the bytes but past the budget of keys is a 413 naming the budget, and is never parsed', async () => {
    const body = unknownKeys(5_000);
    expect(Buffer.byteLength(body)).to.be.below(60_000);
    const { reply, parses } = await parsesOf(body, () => patch(ownOrder, body, salesPerson));
    const m = expectError(reply, 413, 'Request_TooLarge');
    expect(m.message).to.match(/keys and array elements/);
    expect(parses).to.equal(0);
  });

  it('array elements count toward the budget as keys do', async () => {
    const body = `{"comment":[${Array(5_000).fill(1).join(',')}]}`;
    expect(Buffer.byteLength(body)).to.be.below(20_000);
    const { reply, parses } = await parsesOf(body, () => patch(ownOrder, body));
    expectError(reply, 413, 'Request_TooLarge');
    expect(parses).to.equal(0);
  });

  it("a login (anonymous) past the budget of keys is a 413 as well, though within its 16 KiB", async () => {
    const body = unknownKeys(1_500);
    expect(Buffer.byteLength(body)).to.be.below(server.config.RestAPI.MaxAnonymousBodyBytes);
    const { reply, parses } = await parsesOf(body, () => server.call('/auth/jwt', { method: 'POST', body, token: null }));
    expectError(reply, 413, 'Request_TooLarge');
    expect(parses).to.equal(0);
  });

  it('an order create takes a whole document at the line cap; the same bytes to a record write (PUT) are a 413', async () => {
    const body = orderOf(server.config.Documents.MaxLines, productId);
    // Over what a record write takes, yet a document of the largest size the cap allows.
    expect(Buffer.byteLength(body)).to.be.above(server.config.RestAPI.DefaultBodyBytes);
    expectOk(await server.call('/sales-order', { method: 'POST', body }), 201);
    const { reply, parses } = await parsesOf(body, () => server.call(`/sales-order/${ownOrder}`, { method: 'PUT', body }));
    expectError(reply, 413, 'Request_TooLarge');
    expect(parses).to.equal(0);
  });

  it('a 30,000-line create (the audit\'s 620 KB) is a 413 before it is parsed, and stores nothing', async () => {
    // Lines of the fields a line needs, as the audit sent them: under the 1 MiB every route used to take.
    const body = JSON.stringify({ customerId: 11000, status: 1, onlineOrderFlag: true, lines: Array(30_000).fill({ productId, orderQty: 1 }) });
    expect(Buffer.byteLength(body)).to.be.below(1_000_000);
    const before = await countRows(server);
    const { reply, parses } = await parsesOf(body, () => server.call('/sales-order', { method: 'POST', body }));
    expectError(reply, 413, 'Request_TooLarge');
    expect(parses).to.equal(0);
    expect(await countRows(server)).to.deep.equal(before);
  });

  it('a record write\'s default limit is far below 1 MB', () => {
    expect(server.config.RestAPI.DefaultBodyBytes).to.be.at.most(128 * 1024);
  });
});
