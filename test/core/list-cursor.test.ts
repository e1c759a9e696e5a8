import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { sql } from 'kysely';
import { type OrderItem, createOrder, expectError, expectOk, listOrders } from '../support/api.js';
import { asListItem, sampleOrders } from '../support/sample-oracle.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

/** Large enough that one request lists every sample order: the expectation paging is held against. */
const MAX_ROWS = 20_000;
const PAGE = 997;

const ids = (items: OrderItem[]) => items.map((o) => o.salesOrderId);
const newest = 'sort[0].fieldName=orderDate&sort[0].sortDirection=Descending';

/** Every page of `query` followed by cursor, from `cursor=` (empty) until an answer carries no nextCursor. */
async function pageByCursor(server: TestServer, query: string, take: number, between?: () => Promise<void>): Promise<OrderItem[]> {
  const items: OrderItem[] = [];
  let cursor = '';
  for (let pages = 0; pages < 1_000; pages++) {
    const reply = await server.call(`/sales-order?${query}&take=${take}&cursor=${encodeURIComponent(cursor)}`);
    const body = expectOk(reply);
    items.push(...(body.result as OrderItem[]));
    if (body.nextCursor === undefined) return items;
    expect(body.result).to.have.length(take);
    cursor = body.nextCursor;
    await between?.();
  }
  throw new Error('paging never ended');
}

const cursorAfter = async (server: TestServer, query: string) => {
  const body = expectOk(await server.call(`/sales-order?${query}&take=3&cursor=`));
  expect(body.nextCursor, 'a first page with more rows after it carries nextCursor').to.be.a('string');
  return body.nextCursor!;
};

describeStores('lists: keyset cursor, deep skip from the end, kept counts', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { RestAPI: { MaxRows: MAX_ROWS } } });
  });
  after(() => server?.stop());

  describe('cursor (read-only orders)', () => {
    // Nullable columns (shipDate, salesPersonId, territoryId) in both directions: NULLs sort at either end by provider.
    const shapes = [
      '',
      `status=5&${newest}`,
      'sort[0].fieldName=shipDate',
      'sort[0].fieldName=salesPersonId&sort[0].sortDirection=Descending',
      'sort[0].fieldName=customerName',
      'sort[0].fieldName=territoryId&sort[0].sortDirection=Descending&sort[1].fieldName=totalDue',
      'onlineOrderFlag=false&sort[0].fieldName=shipDate&sort[0].sortDirection=Descending',
    ];
    for (const query of shapes) {
      it(`pages through every row exactly once, in the list's order: ${query || 'by id'}`, async () => {
        const all = await listOrders(server, `${query}&take=${MAX_ROWS}`);
        expect(all.length).to.be.greaterThan(PAGE * 2);
        const paged = await pageByCursor(server, query, PAGE);
        expect(ids(paged)).to.deep.equal(ids(all));
        expect(paged).to.deep.equal(all);
      });
    }

    it('a first page without more rows after it has no nextCursor; without cursor no answer has one', async () => {
      const body = expectOk(await server.call(`/sales-order?salesOrderNumber=SO43659&cursor=`));
      expect(body.result).to.have.length(1);
      expect(body).to.not.have.property('nextCursor');
      expect(expectOk(await server.call('/sales-order?take=2'))).to.not.have.property('nextCursor');
    });

    it('refuses a forged, cut or edited cursor with a 400 on cursor', async () => {
      const good = await cursorAfter(server, newest);
      const [payload, signature] = good.split('.');
      const json = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { list: string; after: unknown[] };
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const forged = [
        'not-a-cursor', good.slice(0, -6), encode({ ...json, after: json.after.slice(1) }), encode({ ...json, after: [{ x: 1 }, 2] }),
        encode({ ...json, list: 'x'.repeat(22) }), encode([1, 2]), encode({ ...json, after: [{ date: 'yesterday' }, 1] }),
        // Issue 20, defect 9: values changed and encoded again, with the signature they came with, with none, or bare.
        `${encode({ ...json, after: [json.after[0], 1] })}.${signature}`, `${encode({ ...json, after: [json.after[0], 1] })}.`,
        encode({ ...json, after: [json.after[0], 1] }), `${payload}.${Buffer.from('x'.repeat(32)).toString('base64url')}`,
      ];
      for (const cursor of forged) {
        const m = expectError(await server.call(`/sales-order?${newest}&cursor=${encodeURIComponent(cursor)}`), 400, 'Input_InvalidCursor', 'cursor');
        expect(m.type).to.equal('Validation');
      }
      expectOk(await server.call(`/sales-order?${newest}&cursor=${encodeURIComponent(good)}`));
    });

    it('follows a cursor on any server given the same secrets (workers, instances, a key rotation), and on no other (issue 20)', async () => {
      const good = encodeURIComponent(await cursorAfter(server, newest));
      const [key] = server.config.Authentication.Cookie.Keys;
      const next = expectOk(await server.call(`/sales-order?${newest}&take=3&cursor=${good}`)).result;
      for (const keys of [key, `${randomBytes(32).toString('base64')},${key}`]) {
        const sharing = await startTestServer({ env: { Authentication__Cookie__Keys: keys }, config: { RestAPI: { MaxRows: MAX_ROWS } } });
        try {
          expect(expectOk(await sharing.call(`/sales-order?${newest}&take=3&cursor=${good}`)).result, keys).to.deep.equal(next);
        } finally {
          await sharing.stop();
        }
      }
      const other = await startTestServer({ config: { RestAPI: { MaxRows: MAX_ROWS } } });
      try {
        expectError(await other.call(`/sales-order?${newest}&take=3&cursor=${good}`), 400, 'Input_InvalidCursor', 'cursor');
      } finally {
        await other.stop();
      }
    });

    it('refuses a cursor made for another sort or another filter with a 400 on cursor', async () => {
      const cursor = encodeURIComponent(await cursorAfter(server, `status=5&${newest}`));
      for (const other of [newest, `status=4&${newest}`, 'status=5&sort[0].fieldName=orderDate', 'status=5&sort[0].fieldName=dueDate&sort[0].sortDirection=Descending']) {
        const m = expectError(await server.call(`/sales-order?${other}&cursor=${cursor}`), 400, 'Input_InvalidCursor', 'cursor');
        expect(m.message).to.match(/other filters or another sort/);
      }
      expectOk(await server.call(`/sales-order?status=5&${newest}&cursor=${cursor}`));
    });

    it("binds a crafted cursor's values as values: text where a date goes lists nothing odd and runs no SQL", async () => {
      const json = JSON.parse(Buffer.from((await cursorAfter(server, newest)).split('.')[0], 'base64url').toString()) as { list: string; after: unknown[] };
      const crafted = Buffer.from(JSON.stringify({ list: json.list, after: ["2024-01-01'); drop table sales_order; --", 1] })).toString('base64url');
      const reply = await server.call(`/sales-order?${newest}&take=5&cursor=${crafted}`);
      if (reply.status !== 200) expectError(reply, 400, 'Input_InvalidCursor', 'cursor');
      expect(await listOrders(server, 'take=1')).to.have.length(1);
    });
  });

  describe('deep skip (read from the end) and kept counts', () => {
    it('a page past the middle is the same as the oracle says, up to the very end and past it', async () => {
      const expected = sampleOrders().filter((o) => o.status === 5)
        .sort((a, b) => b.orderDate.getTime() - a.orderDate.getTime() || b.salesOrderId - a.salesOrderId).map(asListItem);
      const total = expected.length;
      expect(total).to.be.greaterThan(2_500);
      for (const [skip, take] of [[1_000, 50], [Math.floor(total / 2) + 1, 50], [total - 60, 50], [total - 10, 50], [total - 1, 1], [total, 5], [total + 7, 5], [total - 5, 0]]) {
        const page = await listOrders(server, `status=5&${newest}&skip=${skip}&take=${take}`);
        expect(page, `skip ${skip} take ${take}`).to.deep.equal(expected.slice(skip, skip + take));
      }
    });

    it('counts stay exact across writes: through the API and straight to the database', async () => {
      const count = async () => expectOk(await server.call(`/sales-order?status=3&${newest}&take=0&getTotalCount=true`)).totalCount!;
      const before = await count();
      expect(await count()).to.equal(before);
      const { id } = await createOrder(server, { status: 3 });
      expect(await count()).to.equal(before + 1);
      // A deep page right after a write counts again too: it reads the new order at the front.
      const deep = await listOrders(server, `status=3&${newest}&skip=${before - 2}&take=10`);
      expect(deep).to.have.length(3);
      expectOk(await server.call(`/sales-order/${id}`, { method: 'DELETE' }));
      expect(await count()).to.equal(before);
      const db = server.infrastructure.storage.db;
      await sql`update sales_order set status = 3 where sales_order_id = (select min(sales_order_id) from sales_order where status = 4)`.execute(db);
      expect(await count()).to.equal(before + 1);
      await sql`update customer set name = name where customer_id = 11000`.execute(db);
      expect(await count()).to.equal(before + 1);
    });

    it('the change generation stays small and exact over many write transactions (PostgreSQL folds its rows)', async () => {
      const count = async () => expectOk(await server.call('/sales-order?status=2&take=0&getTotalCount=true')).totalCount!;
      const db = server.infrastructure.storage.db;
      const before = await count();
      for (let i = 0; i < 600; i++) {
        await sql`update sales_order set comment = ${`write ${i}`} where sales_order_id = 43660`.execute(db);
        if (i % 100 === 99) expect(await count()).to.equal(before);
      }
      await sql`update sales_order set status = 2 where sales_order_id = (select min(sales_order_id) from sales_order where status = 1)`.execute(db);
      expect(await count()).to.equal(before + 1);
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from restlayer_list_change where table_name = 'sales_order'`.execute(db);
      expect(Number(rows[0].n), 'rows of the generation').to.be.below(600);
    });

    it('a cursor walk sees every row that was there when it began exactly once, in order, while orders are added', async () => {
      for (const query of ['', newest]) {
        const before = await listOrders(server, `${query}&take=${MAX_ROWS}`);
        let added = 0;
        const paged = await pageByCursor(server, query, 2_500, async () => {
          await createOrder(server, { status: 2 });
          added++;
        });
        expect(new Set(ids(paged)).size, 'no row twice').to.equal(paged.length);
        const existing = new Set(ids(before));
        expect(ids(paged).filter((id) => existing.has(id))).to.deep.equal(ids(before));
        expect(paged.length).to.be.at.most(before.length + added);
      }
    });
  });
});
