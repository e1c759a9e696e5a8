import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { expectOk } from '../support/api.js';
import { sampleSum, scrape } from '../support/metrics.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { testProvider } from '../support/test-stores.js';
import { FAST_HASH } from '../support/users.js';

/**
 * Issue 40: with Tenancy:Enabled a list sends the statements it sends with tenancy off (test/sales-order/statements.test.ts),
 * its kept count and kept build keyed by the tenant, not one more: a count only (take=0) is the check of the kept
 * count's generation and the page, a first page with its count the same two, for an administrator and for a
 * SalesPerson's scope inside the tenant alike. bench/scale.js --tenancy times the same shapes at a million orders.
 */
describeStores(`statements per list request with tenancy on (${testProvider})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let admin: string;
  let salesPerson: string;

  const statements = async () => sampleSum((await scrape(server.metricsUrl!)).text, 'restlayer_db_statements_total');

  /** The fewest statements `request` sent over three tries, each a 200 (a session recheck may add a read to one). */
  async function fewest(request: () => Promise<Reply>): Promise<number> {
    const counts: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = await statements();
      const reply = await request();
      expect(reply.status, reply.text).to.equal(200);
      counts.push((await statements()) - before);
    }
    return Math.min(...counts);
  }

  before(async () => {
    server = await startTestServer({ logLevel: 'error', metrics: true, config: { ...FAST_HASH, Tenancy: { Enabled: true, DefaultTenant: 'acme' } } });
    admin = server.token({ sub: 'ann', name: 'ann', role: ['Administrator'], tid: 'acme' });
    const people = (await server.call('/sales-order?take=1&salesPersonId.operator=NNL', { token: admin })).body.result as { salesPersonId: number }[];
    const me = people[0].salesPersonId;
    const userName = 'sally';
    const password = `${userName}-password-1`;
    await withErrorScope(() => server.services.users.add({ userName, password, roles: ['SalesPerson'] }, { tenantId: 'acme', salesPersonId: String(me) }));
    salesPerson = (expectOk(await server.call('/auth/jwt', { method: 'POST', token: '', body: { userName, password } })).result as { accessToken: string }).accessToken;
  });
  after(() => server?.stop());

  const lists: [string, string][] = [
    ['a count only', '/sales-order?take=0&getTotalCount=true'],
    ['a first page with its count', '/sales-order?take=50&getTotalCount=true'],
    ['one status newest first, with its count', '/sales-order?take=50&status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&getTotalCount=true'],
  ];
  for (const [what, path] of lists) {
    it(`${what}: 2 (the kept count's generation, the page), as with tenancy off; scoped or not`, async () => {
      for (const token of [admin, salesPerson]) {
        const first = await server.call(path, { token });
        expect(first.status, first.text).to.equal(200);
        expect(first.body.totalCount).to.be.greaterThan(0);
        expect(await fewest(() => server.call(path, { token }))).to.equal(2);
      }
    });
  }
});
