import { expect } from 'chai';
import { LookupProxy, type RestClient, isConcurrencyConflict } from 'restlayer/client';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { FAST_HASH, addUser } from '../support/users.js';
import { clientFor, recordingFetch } from './support.js';

const codes = (output: { messages: { code: string }[] }) => output.messages.map((m) => m.code);

/** The typed client's conditional writes (contract part 14): If-Match from the tag it read, a 412 surfaced as a concurrency conflict. */
describeStores('client: If-Match from the tags it read (issue 41)', () => {
  let server: TestServer;
  let productId: number;
  const recorder = recordingFetch();

  const login = async (options: { conditional?: boolean } = {}): Promise<RestClient> => {
    const client = clientFor(server, { Authorization: true }, { fetch: recorder.fetch, ...options });
    expect((await client.login('tag', 'tag-password-1')).messages).to.deep.equal([]);
    return client;
  };
  const lastIfMatch = () => recorder.sent.at(-1)!.headers.get('If-Match');
  /** Someone else's change of the order, behind the client's back. */
  const changeBehind = async (id: number) => {
    const reply = await server.call(`/sales-order/${id}`, { method: 'PATCH', body: { comment: `changed ${Math.random()}` } });
    expect(reply.status).to.equal(200);
  };

  before(async () => {
    server = await startTestServer({ config: FAST_HASH });
    await addUser(server, 'tag', 'tag-password-1');
    const client = await login();
    productId = Number((await new LookupProxy(client).read('product')).result!.table.data.find((p) => p.isActive)!.id);
  });
  after(() => server.stop());

  async function newOrder(proxy: SalesOrderProxy): Promise<number> {
    const created = await proxy.create({ customerId: 11000, status: 1, onlineOrderFlag: true, lines: [{ productId, orderQty: 1 }] });
    expect(codes(created)).to.deep.equal([]);
    return created.result!.salesOrderId;
  }

  it('a write of a record read before carries its tag; changed meanwhile, it is a 412 the client reports as a concurrency conflict', async () => {
    const proxy = new SalesOrderProxy(await login());
    const id = await newOrder(proxy);
    const read = await proxy.read(id);
    expect(codes(read)).to.deep.equal([]);
    const tag = recorder.sent.at(-1)!;
    expect(tag.status).to.equal(200);

    const first = await proxy.patch(id, { comment: 'mine' });
    expect(codes(first)).to.deep.equal([]);
    expect(lastIfMatch()).to.match(/^"/);
    // The answer's new tag is the one held now: a second write of the same client goes through.
    expect(codes(await proxy.patch(id, { comment: 'mine again' }))).to.deep.equal([]);

    await changeBehind(id);
    const lost = await proxy.patch(id, { comment: 'would overwrite' });
    expect(recorder.sent.at(-1)!.status).to.equal(412);
    expect(isConcurrencyConflict(lost)).to.equal(true);
    expect(lost.messages[0]).to.include({ code: 'Entity_Concurrency', type: 'Concurrency' });
    expect((await proxy.read(id)).result!.comment).to.not.equal('would overwrite');
    // Read again, the write goes through.
    expect(codes(await proxy.patch(id, { comment: 'after reading again' }))).to.deep.equal([]);
  });

  it('a line write carries its order\'s tag', async () => {
    const proxy = new SalesOrderProxy(await login());
    const id = await newOrder(proxy);
    const lineId = (await proxy.read(id)).result!.lines[0].salesOrderDetailId;
    expect(codes(await proxy.createLine(id, { productId, orderQty: 2 }))).to.deep.equal([]);
    expect(lastIfMatch()).to.match(/^"/);
    await changeBehind(id);
    const lost = await proxy.patchLine(id, lineId, { orderQty: 7 });
    expect(recorder.sent.at(-1)!.status).to.equal(412);
    expect(isConcurrencyConflict(lost)).to.equal(true);
  });

  it('a record never read, or a client with conditional: false, writes without If-Match', async () => {
    const proxy = new SalesOrderProxy(await login());
    const id = await newOrder(proxy);
    expect(codes(await proxy.patch(id, { comment: 'unread' }))).to.deep.equal([]);
    expect(lastIfMatch()).to.equal(null);
    const plain = new SalesOrderProxy(await login({ conditional: false }));
    await plain.read(id);
    await changeBehind(id);
    expect(codes(await plain.patch(id, { comment: 'last writer wins' }))).to.deep.equal([]);
    expect(lastIfMatch()).to.equal(null);
  });
});
