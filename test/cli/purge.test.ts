import { expect } from 'chai';
import { type Kysely, sql } from 'restlayer';
import { expectError, expectOk } from '../support/api.js';
import { cliEnv, expectCliFailure, lines } from '../support/cli-env.js';
import { killChildren, runCli } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

interface Purged { resource: string; records: number; batches: number }

/**
 * `restlayer purge --older-than DAYS [--service NAME] [--batch N]` (contract part 13), a real process on the running
 * server's store: it removes the records deleted longer ago than DAYS with their lines, in batches; a deleted customer
 * its deleted orders still refer to stays until they are purged; a purged record's history and restore answer 404.
 */
describeStores('restlayer purge (a real process against a running server)', function () {
  this.timeout(120_000);
  let server: TestServer;
  const purge = (...args: string[]) => runCli(['purge', ...args], { env: cliEnv(server) });
  const db = () => server.infrastructure.storage.db as unknown as Kysely<unknown>;
  const rowsOf = async (table: string, column: string, id: number) =>
    Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} = ${id}`.execute(db())).rows[0].n);

  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  const created = async (path: string, body: Record<string, unknown>, key: string) => {
    const reply = await server.call(path, { method: 'POST', body });
    expectOk(reply, 201);
    return reply.body.result[key] as number;
  };

  it('refuses a missing --older-than, a negative or non-numeric DAYS and an unknown service as usage errors (exit 2)', async () => {
    expectCliFailure(await purge(), 2, '--older-than');
    expectCliFailure(await purge('--older-than', '-1'), 2, '--older-than');
    expectCliFailure(await purge('--older-than', 'soon'), 2, '--older-than');
    expectCliFailure(await purge('--older-than', '1', '--service', 'product'), 2, "unknown service 'product'");
  });

  it('removes what was deleted longer ago than DAYS with its lines, in batches; a referred customer waits for its orders', async () => {
    const customerId = await created('/customer', { name: 'Purge Customer' }, 'customerId');
    const loner = await created('/customer', { name: 'Purge Loner' }, 'customerId');
    const lines2 = [{ productId: 707, orderQty: 1 }, { productId: 708, orderQty: 2 }];
    const orders = [];
    for (let i = 0; i < 3; i++) orders.push(await created('/sales-order', { customerId, status: 1, onlineOrderFlag: true, lines: lines2 }, 'salesOrderId'));
    for (const id of orders) expectOk(await server.call(`/sales-order/${id}`, { method: 'DELETE' }));
    expectOk(await server.call(`/customer/${customerId}`, { method: 'DELETE' }));
    expectOk(await server.call(`/customer/${loner}`, { method: 'DELETE' }));

    // Deleted a moment ago: not older than a day.
    const none = await purge('--older-than', '1', '--json');
    expect(none.code, none.stderr).to.equal(0);
    expect(JSON.parse(none.stdout) as Purged[]).to.deep.equal([
      { resource: 'sales-order', records: 0, batches: 0 }, { resource: 'customer', records: 0, batches: 0 },
    ]);

    // Customers alone: the one its deleted orders refer to stays.
    const customers = await purge('--older-than', '0', '--service', 'customer');
    expect(customers.code, customers.stderr).to.equal(0);
    expect(lines(customers.stdout)).to.deep.equal(['customer: 1 purged in 1 batches']);
    expectError(await server.call(`/customer/${loner}/history`), 404, 'Entity_NotFound');
    expectError(await server.call(`/customer/${loner}/restore`, { method: 'POST' }), 404, 'Entity_NotFound');
    expect(await rowsOf('customer', 'customer_id', customerId)).to.equal(1);

    // Then every service, one record a batch: the orders with their lines first, then their customer.
    const all = await purge('--older-than', '0', '--batch', '1', '--json');
    expect(all.code, all.stderr).to.equal(0);
    expect(JSON.parse(all.stdout) as Purged[]).to.deep.equal([
      { resource: 'sales-order', records: 3, batches: 3 }, { resource: 'customer', records: 1, batches: 1 },
    ]);
    for (const id of orders) {
      expect(await rowsOf('sales_order_detail', 'sales_order_id', id)).to.equal(0);
      expectError(await server.call(`/sales-order/${id}/history`), 404, 'Entity_NotFound');
      expectError(await server.call(`/sales-order/${id}/restore`, { method: 'POST' }), 404, 'Entity_NotFound');
    }
    expectError(await server.call(`/customer/${customerId}/history`), 404, 'Entity_NotFound');
    const deleted = expectOk(await server.call('/customer?deleted=true&name=Purge&name.operator=SW&getTotalCount=true'));
    expect(deleted.totalCount).to.equal(0);
    const orderList = expectOk(await server.call('/sales-order?deleted=true&getTotalCount=true'));
    expect(orderList.totalCount).to.equal(0);
  });

  it('purges thousands in batches while writes run: every write answers (the slowest is logged)', async () => {
    // 3,000 sample orders deleted long ago (marked behind the API), and writes to other orders while they are purged.
    const old = server.infrastructure.storage.values.date(new Date(Date.now() - 40 * 86_400_000));
    await sql`update sales_order set deleted_at = ${old} where sales_order_id in
      (select sales_order_id from sales_order where deleted_at is null order by sales_order_id limit 3000)`.execute(db());
    const target = (expectOk(await server.call('/sales-order?take=1&sort[0].fieldName=salesOrderId&sort[0].sortDirection=Descending')).result as { salesOrderId: number }[])[0].salesOrderId;
    let running = true;
    const waits: number[] = [];
    const writes = (async () => {
      for (let i = 0; running || i < 5; i++) {
        const started = performance.now();
        const reply = await server.call(`/sales-order/${target}`, { method: 'PATCH', body: { comment: `write ${i}` }, headers: { 'Content-Type': 'application/merge-patch+json' } });
        waits.push(performance.now() - started);
        expectOk(reply);
      }
    })();
    const run = await purge('--older-than', '30', '--service', 'sales-order', '--json');
    running = false;
    await writes;
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout) as Purged[]).to.deep.equal([{ resource: 'sales-order', records: 3000, batches: 6 }]);
    console.log(`      ${waits.length} writes during the purge, the slowest ${Math.max(...waits).toFixed(0)} ms`);
    expect(expectOk(await server.call('/sales-order?deleted=true&getTotalCount=true')).totalCount).to.equal(0);
  });
});
