import { expect } from 'chai';
import type { RetryOptions } from 'restlayer/client';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';
import { type ResponseDropper, responseDropper } from '../support/response-dropper.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { clientFor, recordingFetch } from './support.js';
import { describeStores } from '../support/stores.js';

const order = (comment: string) => ({ customerId: 11003, status: 1, onlineOrderFlag: false, comment });

/** A sleep that counts pauses instead of spending them. */
function pauses(): RetryOptions & { taken: number[] } {
  const taken: number[] = [];
  return { taken, sleep: async (ms: number) => void taken.push(ms) };
}

describeStores('client: creates carry an Idempotency-Key and are repeated after a fault', function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
  });
  after(() => server?.stop());

  const orderCount = async () => (await server.call('/sales-order?getTotalCount=true&take=1')).body.totalCount as number;

  /** A proxy whose client goes to `port` (the server, or a proxy in front of it) with the recorder's fetch. */
  function proxyVia(port: number, recorder: ReturnType<typeof recordingFetch>, retry: RetryOptions) {
    const client = clientFor(server, { BaseAddress: `http://127.0.0.1:${port}` }, { fetch: recorder.fetch, retry });
    client.tokens!.setTokens({ accessToken: server.token() });
    return new SalesOrderProxy(client);
  }

  it('a create whose answer is lost on the way (connection dropped) is sent again with its key: exactly one order', async () => {
    let dropper: ResponseDropper | undefined;
    try {
      dropper = await responseDropper('127.0.0.1', server.port, 1);
      const recorder = recordingFetch();
      const wait = pauses();
      const before = await orderCount();
      const output = await proxyVia(dropper.port, recorder, wait).create(order('dropped answer'));
      expect(output.messages).to.deep.equal([]);
      expect(output.result!.salesOrderId).to.be.a('number');
      expect(dropper.dropped()).to.equal(1);
      const sent = recorder.to('/sales-order');
      expect(sent.map((s) => s.status)).to.deep.equal([0, 201]);
      const keys = sent.map((s) => s.headers.get('Idempotency-Key'));
      expect(keys[0]).to.match(/^[0-9a-f-]{36}$/);
      expect(keys[1]).to.equal(keys[0]);
      expect(wait.taken).to.have.length(1);
      expect(await orderCount()).to.equal(before + 1);
      // The order the client got is the one the lost answer was about.
      expect((await server.call(`/sales-order/${output.result!.salesOrderId}`)).body.result.comment).to.equal('dropped answer');
    } finally {
      await dropper?.close();
    }
  });

  it('a create answered 503 after it was saved is sent again after Retry-After: the first outcome, exactly one order', async () => {
    let faked = 0;
    const recorder = recordingFetch(async (request) => {
      const real = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
      if (request.method !== 'POST' || faked++ > 0) return real;
      // The server saved the order; the answer the client gets says "unavailable" (a fault on the way back).
      await real.text();
      return new Response(JSON.stringify({ messages: [{ code: 'Storage_Unavailable', message: 'Please retry shortly.', severity: 'Error', type: 'System' }] }),
        { status: 503, headers: { 'Content-Type': 'application/json', 'Retry-After': '7' } });
    });
    const wait = pauses();
    const before = await orderCount();
    const output = await proxyVia(server.port, recorder, wait).create(order('503 then replay'));
    expect(output.messages).to.deep.equal([]);
    expect(recorder.statuses()).to.deep.equal([503, 201]);
    expect(wait.taken).to.deep.equal([7_000]);
    const sent = recorder.to('/sales-order');
    expect(sent[1].headers.get('Idempotency-Key')).to.equal(sent[0].headers.get('Idempotency-Key'));
    expect(await orderCount()).to.equal(before + 1);
  });

  it('retries are bounded, with growing pauses capped at maxDelayMs; each create has a key of its own; reads and updates carry none', async () => {
    const recorder = recordingFetch(() => new Response('{"messages":[]}', { status: 503, headers: { 'Content-Type': 'application/json' } }));
    const wait = pauses();
    const proxy = proxyVia(server.port, recorder, { ...wait, retries: 4, baseDelayMs: 100, maxDelayMs: 300 });
    await proxy.create(order('never'));
    expect(recorder.statuses()).to.deep.equal([503, 503, 503, 503, 503]);
    expect(wait.taken).to.have.length(4);
    expect(wait.taken[0]).to.be.within(50, 100);
    expect(wait.taken[1]).to.be.within(100, 200);
    expect(wait.taken.slice(2)).to.deep.equal([Math.min(300, wait.taken[2]), 300]);
    await proxy.create(order('again'));
    const keys = new Set(recorder.to('/sales-order').map((s) => s.headers.get('Idempotency-Key')));
    expect(keys.size).to.equal(2);
    recorder.clear();
    await proxy.read(43659);
    await proxy.update(43659, { status: 1, onlineOrderFlag: false });
    expect(recorder.sent.map((s) => [s.method, s.headers.get('Idempotency-Key')])).to.deep.equal([['GET', null], ['PUT', null]]);
    expect(recorder.sent).to.have.length(2);
  });
});
