import { expect } from 'chai';
import { sql } from 'kysely';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { describeStores } from '../support/stores.js';

interface Named {
  customerId: number;
  name: string;
}

/** Criterion CN on a name with a trigram index (issue 15): the same rows as reading every row, found through the index. */
describeStores(`lists: name contains (CN) through a trigram index, on ${testProvider}`, function () {
  this.timeout(30_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
  });
  after(async () => {
    await server?.stop();
  });

  const ok = (reply: Reply) => {
    expect(reply.status, reply.text).to.be.oneOf([200, 201]);
    return reply.body;
  };
  const customersContaining = async (text: string) => {
    const body = ok(await server.call(`/customer?take=1000&getTotalCount=true&name=${encodeURIComponent(text)}&name.operator=CN`));
    return { ids: (body.result as Named[]).map((c) => c.customerId).sort((a, b) => a - b), total: body.totalCount };
  };
  /** The oracle: every customer read, and matched here (ASCII case folded, as LIKE does). */
  const oracle = async (text: string) => {
    const all = ok(await server.call('/customer?take=1000')).result as Named[];
    return all.filter((c) => c.name.toLowerCase().includes(text.toLowerCase())).map((c) => c.customerId).sort((a, b) => a - b);
  };

  for (const text of ['son', 'SON', 'ar', 'ell', 'e W', 'zzzq', '10%', 'a_b']) {
    it(`customers whose name contains ${JSON.stringify(text)} are exactly those the rows say`, async () => {
      const expected = await oracle(text);
      const { ids, total } = await customersContaining(text);
      expect(ids).to.deep.equal(expected);
      expect(total).to.equal(expected.length);
      // Without a count the page walks the list instead of reading the index: the same rows.
      const walked = ok(await server.call(`/customer?take=1000&name=${encodeURIComponent(text)}&name.operator=CN`)).result as Named[];
      expect(walked.map((c) => c.customerId).sort((a, b) => a - b)).to.deep.equal(expected);
    });
  }

  it('the index follows inserts, renames and deletes', async () => {
    const created = ok(await server.call('/customer', { method: 'POST', body: { name: 'Qwertzuiop Xylograph', accountNumber: 'AW-CN-1' } }));
    const id = (created.result as Named).customerId;
    expect((await customersContaining('ylograp')).ids).to.deep.equal([id]);
    ok(await server.call(`/customer/${id}`, { method: 'PATCH', body: { name: 'Plain Renamed' }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
    expect((await customersContaining('ylograp')).ids).to.deep.equal([]);
    expect((await customersContaining('ain renam')).ids).to.deep.equal([id]);
    expect((await server.call(`/customer/${id}`, { method: 'DELETE' })).status).to.be.oneOf([200, 204]);
    expect((await customersContaining('ain renam')).ids).to.deep.equal([]);
  });

  it('orders whose customer name contains a text: the count and the rows agree with the rows of the database', async () => {
    const { db } = server.infrastructure.storage;
    const [row] = (await sql<{ n: number | string }>`select count(*) as n from sales_order so join customer c on c.customer_id = so.customer_id
      where lower(c.name) like '%son%'`.execute(db)).rows;
    const body = ok(await server.call('/sales-order?take=50&getTotalCount=true&customerName=son&customerName.operator=CN'));
    expect(body.totalCount).to.equal(Number(row.n)).and.to.be.above(0);
    const names = (body.result as { customerName: string }[]).map((o) => o.customerName.toLowerCase());
    expect(names).to.have.length(Math.min(50, Number(row.n)));
    for (const name of names) expect(name).to.include('son');
  });
});
