import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { type TestServer, startTestServer } from '../support/server.js';
import { inconsistentOrders } from './lines-support.js';

describe('sample orders and their lines (contract part 9)', () => {
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
});
