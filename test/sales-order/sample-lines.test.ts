import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { growOrders } from '../support/grow-orders.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { countRows, inconsistentOrders } from './lines-support.js';
import { describeStores } from '../support/stores.js';

describeStores('sample orders and their lines (contract part 9)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('every sample order\'s totals follow from its lines (one SQL query over all of them)', async () => {
    expect(await inconsistentOrders(server)).to.deep.equal([]);
  });

  it('every sample order has 1 to 10 lines, of active products', async () => {
    const db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
    const { rows } = await sql<{ fewest: number | string; most: number | string; orders: number | string; lines: number | string }>`
      select min(n) as fewest, max(n) as most, count(*) as orders, sum(n) as lines from (
        select so.sales_order_id, count(d.sales_order_detail_id) as n from sales_order so
        left join sales_order_detail d on d.sales_order_id = so.sales_order_id group by so.sales_order_id) per_order`.execute(db);
    const [stats] = rows;
    expect(Number(stats.fewest)).to.equal(1);
    expect(Number(stats.most)).to.equal(10);
    expect(Number(stats.orders)).to.be.at.least(10_000);
    expect(Number(stats.lines)).to.be.within(Number(stats.orders) * 4, Number(stats.orders) * 7);
    const { rows: retired } = await sql<{ n: number | string }>`select count(*) as n from sales_order_detail d
      join product p on p.product_id = d.product_id where p.is_active = ${server.infrastructure.storage.values.bool(false)}`.execute(db);
    expect(Number(retired[0].n)).to.equal(0);
  });

  it('growOrders (bench/scale.js) copies the orders with their lines: every copy\'s totals still follow from its lines', async () => {
    const grown = await startTestServer();
    try {
      const before = await countRows(grown);
      const orders = await growOrders(grown.infrastructure.storage, before.orders * 2);
      expect(orders).to.equal(before.orders * 2);
      expect(await countRows(grown)).to.deep.equal({ orders: before.orders * 2, lines: before.lines * 2 });
      expect(await inconsistentOrders(grown)).to.deep.equal([]);
      // A line added after growing gets a fresh id.
      const [last] = (await grown.call('/sales-order?sort[0].fieldName=salesOrderId&sort[0].sortDirection=Descending&take=1')).body.result;
      const reply = await grown.call(`/sales-order/${last.salesOrderId}/detail`, { method: 'POST', body: { productId: 700, orderQty: 1 } });
      expect(reply.status, reply.text).to.equal(201);
    } finally {
      await grown.stop();
    }
  });
});
