import { expect } from 'chai';
import { type Kysely, sql } from 'restlayer';
import { expectOk } from '../support/api.js';
import { whileHeld } from '../support/held-row.js';
import { type Json, type JsonObject, type Reply, type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { addLine, orderWith, someProducts } from '../sales-order/lines-support.js';
import { scopedUser } from '../access/support.js';

/** Contract part 14: ETag, If-None-Match (304) and If-Match (412) on customers and sales orders. */
describeStores('conditional requests on records (issue 41, part 14)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  const tagOf = async (path: string) => {
    const reply = await server.call(path);
    expectOk(reply);
    const etag = reply.headers.get('etag')!;
    expect(etag, path).to.match(/^"[^"]+"$/); // strong: no W/
    return { etag, body: reply.body.result as Record<string, Json> };
  };
  const newCustomer = async (name: string) =>
    expectOk(await server.call('/customer', { method: 'POST', body: { name } }), 201).result.customerId as number;
  const send = (path: string, method: string, ifMatch: string | undefined, body?: unknown): Promise<Reply> =>
    server.call(path, { method, body, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });
  const expect412 = (reply: Reply) => {
    expect(reply.status, reply.text).to.equal(412);
    expect(reply.body.messages).to.have.length(1);
    expect(reply.body.messages[0]).to.include({ code: 'Entity_Concurrency', type: 'Concurrency', severity: 'Error' });
    expect(reply.body.result).to.equal(undefined);
  };

  it('a record answers a strong ETag; If-None-Match naming it answers 304 without a body, another tag the record', async () => {
    const id = await newCustomer('Conditional One');
    const { etag } = await tagOf(`/customer/${id}`);
    const again = await server.call(`/customer/${id}`, { headers: { 'If-None-Match': etag } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
    expect(again.headers.get('etag')).to.equal(etag);
    const other = await server.call(`/customer/${id}`, { headers: { 'If-None-Match': '"something-else"' } });
    expect(other.status).to.equal(200);
    expect(other.body.result.customerId).to.equal(id);
  });

  it('an order\'s tag changes with its lines and when its customer is renamed, and only then', async () => {
    const { active } = await someProducts(server);
    const customerId = await newCustomer('Tag Customer');
    const orderId = await orderWith(server, [{ productId: active.id, orderQty: 1 }], { customerId });
    const first = await tagOf(`/sales-order/${orderId}`);
    expect((await tagOf(`/sales-order/${orderId}`)).etag).to.equal(first.etag);
    expectOk(await addLine(server, orderId, { productId: active.id, orderQty: 2 }), 201);
    const withLine = await tagOf(`/sales-order/${orderId}`);
    expect(withLine.etag).to.not.equal(first.etag);
    expectOk(await server.call(`/customer/${customerId}`, { method: 'PATCH', body: { name: 'Tag Customer Renamed' }, headers: { 'Content-Type': 'application/merge-patch+json' } }));
    const renamed = await tagOf(`/sales-order/${orderId}`);
    expect(renamed.body.customerName).to.equal('Tag Customer Renamed');
    expect(renamed.etag).to.not.equal(withLine.etag);
    const stale = await server.call(`/sales-order/${orderId}`, { headers: { 'If-None-Match': withLine.etag } });
    expect(stale.status).to.equal(200);
  });

  it('PUT, PATCH and DELETE with a stale If-Match answer 412 and write nothing; with the current one they write and answer the new ETag', async () => {
    const id = await newCustomer('Conditional Two');
    const path = `/customer/${id}`;
    const before = await tagOf(path);
    expectOk(await send(path, 'PATCH', before.etag, { accountNumber: 'CR-1' }));
    const after = await tagOf(path);
    for (const [method, body] of [['PUT', { name: 'Lost' }], ['PATCH', { name: 'Lost' }], ['DELETE', undefined]] as const) {
      expect412(await send(path, method, before.etag, body));
    }
    const unchanged = await tagOf(path);
    expect(unchanged.etag).to.equal(after.etag);
    expect(unchanged.body).to.deep.equal(after.body);

    const put = await send(path, 'PUT', `"other", ${after.etag}`, { name: 'Kept', accountNumber: 'CR-1' });
    expectOk(put);
    const current = await tagOf(path);
    expect(put.headers.get('etag')).to.equal(current.etag);
    expect(current.body.name).to.equal('Kept');
    const patch = await send(path, 'PATCH', current.etag, { name: 'Kept Again' });
    expectOk(patch);
    expect(patch.headers.get('etag')).to.equal((await tagOf(path)).etag);
    expectOk(await send(path, 'DELETE', patch.headers.get('etag')!));
    expect((await server.call(path)).status).to.equal(404);
  });

  it('a record that does not exist answers 404 as without the header, except to If-Match: * (412)', async () => {
    const missing = '/customer/2147483000';
    const plain = await send(missing, 'PATCH', undefined, { name: 'x' });
    const tagged = await send(missing, 'PATCH', '"abc"', { name: 'x' });
    expect(plain.status).to.equal(404);
    expect(tagged.status).to.equal(404);
    expect(tagged.body.messages).to.deep.equal(plain.body.messages);
    expect412(await send(missing, 'PATCH', '*', { name: 'x' }));
    expect412(await send('/sales-order/2147483000', 'DELETE', '*'));
    const id = await newCustomer('Star');
    expectOk(await send(`/customer/${id}`, 'PATCH', '*', { name: 'Star Two' }));
  });

  it('an order outside the caller\'s record scope answers 404 with or without If-Match, and 412 to If-Match: *', async () => {
    const token = await scopedUser(server, `tag-sp-${Date.now()}`, ['SalesPerson'], { salesPersonId: '279' });
    const other = expectOk(await server.call('/sales-order?salesPersonId=282&take=1')).result[0].salesOrderId as number;
    const { etag } = await tagOf(`/sales-order/${other}`);
    const call = (ifMatch?: string) => server.call(`/sales-order/${other}`, {
      method: 'PATCH', body: { comment: 'out of reach' }, token, headers: ifMatch ? { 'If-Match': ifMatch } : {},
    });
    const plain = await call();
    const tagged = await call(etag);
    expect(plain.status).to.equal(404);
    expect(tagged.status).to.equal(404);
    expect(tagged.body.messages).to.deep.equal(plain.body.messages);
    expect412(await call('*'));
    expect((await tagOf(`/sales-order/${other}`)).etag).to.equal(etag);
  });

  it('If-Match with revisionNumber: a stale tag is a 412, a stale revision with a current tag a 409', async () => {
    const id = await newCustomer('Both');
    const path = `/customer/${id}`;
    const first = await tagOf(path);
    expectOk(await send(path, 'PATCH', first.etag, { name: 'Both 2' }));
    const second = await tagOf(path);
    expect412(await send(path, 'PATCH', first.etag, { name: 'x', revisionNumber: second.body.revisionNumber }));
    const stale = await send(path, 'PATCH', second.etag, { name: 'x', revisionNumber: first.body.revisionNumber });
    expect(stale.status).to.equal(409);
    expect(stale.body.messages[0].code).to.equal('Entity_Concurrency');
    expect((await tagOf(path)).etag).to.equal(second.etag);
  });

  it('line writes take the order\'s tag: a stale one is a 412 with nothing written, the current one answers the order\'s new tag', async () => {
    const { active, other } = await someProducts(server);
    const orderId = await orderWith(server, [{ productId: active.id, orderQty: 1 }]);
    const path = `/sales-order/${orderId}`;
    const first = await tagOf(path);
    const lineId = (first.body.lines as { salesOrderDetailId: number }[])[0].salesOrderDetailId;
    const added = await send(`${path}/detail`, 'POST', first.etag, { productId: other.id, orderQty: 3 });
    expectOk(added, 201);
    const second = await tagOf(path);
    expect(added.headers.get('etag')).to.equal(second.etag);
    expect412(await send(`${path}/detail`, 'POST', first.etag, { productId: other.id, orderQty: 3 }));
    expect412(await send(`${path}/detail/${lineId}`, 'PATCH', first.etag, { orderQty: 9 }));
    expect412(await send(`${path}/detail/${lineId}`, 'PUT', first.etag, { productId: active.id, orderQty: 9 }));
    expect412(await send(`${path}/detail/${lineId}`, 'DELETE', first.etag));
    expect412(await send(path, 'PATCH', first.etag, { comment: 'lost' }));
    expect((await tagOf(path)).body).to.deep.equal(second.body);
    const patched = await send(`${path}/detail/${lineId}`, 'PATCH', second.etag, { orderQty: 9 });
    expectOk(patched);
    expect(patched.headers.get('etag')).to.equal((await tagOf(path)).etag);
  });

  for (const kind of ['customer', 'order header', 'order line'] as const) {
    it(`a burst of writes sent at once with one If-Match: exactly one succeeds, every other is a 412 (${kind})`, async () => {
      const { active } = await someProducts(server);
      const id = kind === 'customer' ? await newCustomer('Burst') : await orderWith(server, [{ productId: active.id, orderQty: 1 }]);
      const path = kind === 'customer' ? `/customer/${id}` : `/sales-order/${id}`;
      const { etag, body } = await tagOf(path);
      const [table, key] = kind === 'customer' ? ['customer', 'customer_id'] : ['sales_order', 'sales_order_id'];
      const replies = await whileHeld(server, table, key, id, () => Array.from({ length: 12 }, (_, i) => (kind === 'order line'
        ? send(`${path}/detail`, 'POST', etag, { productId: active.id, orderQty: i + 1 })
        : send(path, 'PATCH', etag, kind === 'customer' ? { name: `Burst ${i}` } : { comment: `burst ${i}` }))));
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 200 || s === 201), String(statuses)).to.have.length(1);
      expect(statuses.filter((s) => s === 412), String(statuses)).to.have.length(11);
      const now = await tagOf(path);
      expect(now.body.revisionNumber).to.equal((body.revisionNumber as number) + 1);
    });
  }

  it('a DELETE and PATCHes sent at once with one If-Match: exactly one succeeds (a soft delete checks the tag on the row it marks)', async () => {
    const id = await newCustomer('Burst delete');
    const path = `/customer/${id}`;
    const { etag } = await tagOf(path);
    const replies = await whileHeld(server, 'customer', 'customer_id', id, () => [
      send(path, 'DELETE', etag),
      ...Array.from({ length: 5 }, (_, i) => send(path, 'PATCH', etag, { name: `Burst delete ${i}` })),
    ]);
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200), String(statuses)).to.have.length(1);
    const [deleted, ...patches] = replies;
    if (deleted.status === 200) {
      // The delete came first: the PATCHes then find no record (404, as without the header).
      expect(patches.map((r) => r.status), String(statuses)).to.deep.equal(patches.map(() => 404));
    } else {
      // A PATCH came first: the delete and the other PATCHes name a tag that is no longer current.
      for (const reply of replies.filter((r) => r.status !== 200)) expect412(reply);
    }
    expect((await server.call(path)).status, String(statuses)).to.equal(deleted.status === 200 ? 404 : 200);
  });

  const mergePatch = { 'Content-Type': 'application/merge-patch+json' };
  const db = () => server.infrastructure.storage.db as unknown as Kysely<unknown>;
  /** Renames a product behind the API (products are no resource: the lines show their names by a join), then back. */
  async function withProductRenamed(productId: number, run: (name: string) => Promise<void>) {
    const { rows } = await sql<{ name: string }>`select name from product where product_id = ${productId}`.execute(db());
    const renamed = `${rows[0].name} (renamed)`;
    await sql`update product set name = ${renamed} where product_id = ${productId}`.execute(db());
    try {
      await run(renamed);
    } finally {
      await sql`update product set name = ${rows[0].name} where product_id = ${productId}`.execute(db());
    }
  }

  it('an order\'s tag stands for what it shows: a product of its lines renamed changes it; another customer renamed, or another order written, does not', async () => {
    const { other } = await someProducts(server);
    const customerId = await newCustomer('Versions Customer');
    const path = `/sales-order/${await orderWith(server, [{ productId: other.id, orderQty: 1 }], { customerId })}`;
    const first = await tagOf(path);
    const neighbour = await newCustomer('Versions Neighbour');
    expectOk(await server.call(`/customer/${neighbour}`, { method: 'PATCH', body: { name: 'Versions Neighbour Renamed' }, headers: mergePatch }));
    const otherOrder = await orderWith(server, [{ productId: other.id, orderQty: 3 }], { customerId });
    expectOk(await server.call(`/sales-order/${otherOrder}`, { method: 'PATCH', body: { comment: 'not this one' }, headers: mergePatch }));
    expect((await tagOf(path)).etag).to.equal(first.etag);
    await withProductRenamed(other.id, async (name) => {
      const renamed = await tagOf(path);
      expect((renamed.body.lines as JsonObject[])[0].productName).to.equal(name);
      expect(renamed.etag).to.not.equal(first.etag);
      expect412(await send(path, 'PATCH', first.etag, { comment: 'stale' }));
      const written = await send(path, 'PATCH', renamed.etag, { comment: 'current' });
      expectOk(written);
      expect(written.headers.get('etag')).to.equal((await tagOf(path)).etag);
    });
  });

  it('a record\'s tag names the instant of its revision: a key handed out again at the same revision is another record', async () => {
    // SQLite gives the highest key again once its record is purged; the new record starts at revision 1 as the old did.
    const id = await newCustomer('Versions Instant');
    const path = `/customer/${id}`;
    const first = await tagOf(path);
    const { values } = server.infrastructure.storage;
    await sql`update customer set modified_date = ${values.date(new Date(Date.UTC(2031, 0, 2)))} where customer_id = ${id}`.execute(db());
    const moved = await tagOf(path);
    expect(moved.body.revisionNumber).to.equal(first.body.revisionNumber);
    expect(moved.etag).to.not.equal(first.etag);
  });

  it('where a table an order shows counts no changes, its tag is the digest of its body, and writes answer that tag', async () => {
    // The products' change count gone (as for a joined table no migration tracks): the layer cannot tell a product's
    // rename from its versions, so the tag digests the body (lib/resources/runtime/version-tag.ts). No product is
    // written meanwhile: PostgreSQL's trigger would count it again.
    const tracked = (await sql<{ table_name: string; slot: number; generation: number }>`select * from restlayer_list_change
      where table_name = 'product'`.execute(db())).rows;
    expect(tracked).to.not.have.length(0);
    await sql`delete from restlayer_list_change where table_name = 'product'`.execute(db());
    try {
      const { other } = await someProducts(server);
      const id = await orderWith(server, [{ productId: other.id, orderQty: 1 }]);
      const path = `/sales-order/${id}`;
      const first = await tagOf(path);
      // A change behind the API that moves no version: only a digest of the body sees it.
      await sql`update sales_order set comment = 'behind the API' where sales_order_id = ${id}`.execute(db());
      const changed = await tagOf(path);
      expect(changed.body.comment).to.equal('behind the API');
      expect(changed.etag).to.not.equal(first.etag);
      expect412(await send(path, 'PATCH', first.etag, { comment: 'stale' }));
      const written = await send(path, 'PATCH', changed.etag, { comment: 'current' });
      expectOk(written);
      expect(written.headers.get('etag')).to.equal((await tagOf(path)).etag);
    } finally {
      await sql`delete from restlayer_list_change where table_name = 'product'`.execute(db());
      for (const row of tracked) {
        await sql`insert into restlayer_list_change (table_name, slot, generation) values (${row.table_name}, ${row.slot}, ${row.generation})`.execute(db());
      }
    }
  });

  it('the OpenAPI document declares ETag, If-None-Match, If-Match, 304 and 412', async () => {
    const doc = expectOk(await server.call('/openapi.json')).result;
    for (const [path, verbs] of [['/customer/{customerId}', ['put', 'patch', 'delete']], ['/sales-order/{salesOrderId}', ['put', 'patch', 'delete']],
      ['/sales-order/{salesOrderId}/detail', ['post']], ['/sales-order/{salesOrderId}/detail/{salesOrderDetailId}', ['put', 'patch', 'delete']]] as const) {
      const item = doc.paths[path];
      if (path.endsWith('Id}') && !path.includes('detail')) {
        expect(item.get.parameters.map((p: { name: string }) => p.name), path).to.include('If-None-Match');
        expect(item.get.responses, path).to.have.property('304');
        expect(item.get.responses['200'].headers, path).to.have.property('ETag');
      }
      for (const verb of verbs) {
        expect(item[verb].parameters.map((p: { name: string }) => p.name), `${verb} ${path}`).to.include('If-Match');
        expect(item[verb].responses, `${verb} ${path}`).to.have.property('412');
      }
    }
  });
});
