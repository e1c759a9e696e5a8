import { expect } from 'chai';
import { until } from '../support/wait.js';
import pg from 'pg';
import { type UrlReply, callUrl } from '../support/http.js';
import { type Deployment, deployment } from '../support/cluster-env.js';
import { requireServices } from '../support/hooks.js';
import { type ServeProcess, killChildren, runCli, startServe } from '../support/processes.js';
import { dropRedisKeys } from '../support/test-stores.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const local = ['--host', '127.0.0.1', '--port', '0'];


describeOneStore('scale-out: two instances on one PostgreSQL and one Redis', WHY_ONE_STORE.scale, function () {
  this.timeout(60_000);
  let d: Deployment;
  let a: ServeProcess;
  let b: ServeProcess;

  before(async function () {
    await requireServices(this, ['postgres', 'redis'], 'the multi-instance tests');
    d = await deployment({ Authentication__RefreshReuseGraceSeconds: '1', Authentication__Throttle__AccountFailures: '3' });
    const add = await runCli(['user', 'add', 'mia', '--role', 'Clerk', '--role', 'Administrator', '--password-stdin'], { env: d.env, input: 'mia-password-1\n' });
    expect(add.code, add.stderr).to.equal(0);
    [a, b] = await Promise.all([startServe(local, { env: d.env }), startServe(local, { env: d.env })]);
  });
  after(async () => {
    await killChildren();
    if (d) {
      await d.drop();
      await dropRedisKeys(d.prefix);
    }
  });

  const login = (server: ServeProcess, path: string, password = 'mia-password-1') =>
    callUrl(`${server.url}${path}`, { method: 'POST', body: { userName: 'mia', password } });
  const pairOf = (reply: UrlReply) => reply.body.result as { accessToken: string; refreshToken: string };

  it('a token issued by one instance works on the other', async () => {
    const pair = pairOf(await login(a, '/auth/jwt'));
    const reply = await callUrl(`${b.url}/sales-order/43659`, { token: pair.accessToken });
    expect(reply.status).to.equal(200);
    expect(reply.body.result.salesOrderId).to.equal(43659);
  });

  it('a cookie session made on one instance works on the other', async () => {
    const reply = await login(a, '/auth/cookie');
    expect(reply.status).to.equal(200);
    const cookie = reply.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const call = await callUrl(`${b.url}/sales-order/43660`, { headers: { Cookie: cookie } });
    expect(call.status).to.equal(200);
  });

  it('refresh rotation and reuse detection hold across instances', async () => {
    const first = pairOf(await login(a, '/auth/jwt'));
    const second = await callUrl(`${b.url}/auth/refresh`, { method: 'POST', body: first });
    expect(second.status).to.equal(200);
    const next = pairOf(second);
    await new Promise((r) => setTimeout(r, 1_300));
    const reuse = await callUrl(`${a.url}/auth/refresh`, { method: 'POST', body: first });
    expect(reuse.status).to.equal(401);
    expect(reuse.body.messages[0].code).to.equal('Security_InvalidRefreshToken');
    // The session is revoked everywhere: the newest pair no longer works on either instance.
    expect((await callUrl(`${b.url}/auth/refresh`, { method: 'POST', body: next })).status).to.equal(401);
    expect((await callUrl(`${a.url}/sales-order/43659`, { token: next.accessToken })).status).to.equal(401);
  });

  it('ten concurrent refreshes of one token on two instances all succeed with one successor; after the grace window it alone works', async () => {
    const pair = pairOf(await login(a, '/auth/jwt'));
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => callUrl(`${(i % 2 ? a : b).url}/auth/refresh`, { method: 'POST', body: pair })));
    expect(replies.map((r) => r.status)).to.deep.equal(Array(10).fill(200));
    const answered = replies.map(pairOf);
    await new Promise((r) => setTimeout(r, 1_300));
    const distinct = [...new Set(answered.map((p) => p.refreshToken))];
    const tried = [];
    for (const refreshToken of distinct) tried.push(await callUrl(`${b.url}/auth/refresh`, { method: 'POST', body: { accessToken: answered[0].accessToken, refreshToken } }));
    expect(tried.filter((r) => r.status === 200), `${distinct.length} distinct refresh tokens`).to.have.length(1);
    expect(distinct).to.have.length(1);
  });

  it('login throttling counts failures on every instance together', async () => {
    await callUrl(`${a.url}/auth/jwt`, { method: 'POST', body: { userName: 'nina', password: 'wrong-1' } });
    await callUrl(`${b.url}/auth/jwt`, { method: 'POST', body: { userName: 'nina', password: 'wrong-2' } });
    await callUrl(`${a.url}/auth/jwt`, { method: 'POST', body: { userName: 'nina', password: 'wrong-3' } });
    const blocked = await callUrl(`${b.url}/auth/jwt`, { method: 'POST', body: { userName: 'nina', password: 'wrong-4' } });
    expect(blocked.status).to.equal(429);
    expect(blocked.headers.get('Retry-After')).to.match(/^\d+$/);
  });

  it('a lookup flush on one instance (or by the CLI) drops the table on the other', async () => {
    const token = pairOf(await login(a, '/auth/jwt')).accessToken;
    const text = async (server: ServeProcess) =>
      ((await callUrl(`${server.url}/lookup-table/sales-order-status`, { token })).body.result.data as { id: number; text: string }[])
        .find((s) => s.id === 3)!.text;
    expect(await text(b)).to.equal('Backordered');
    const client = new pg.Client({ connectionString: d.env.Storage__Postgres__Url });
    await client.connect();
    try {
      await client.query(`update sales_order_status set name = 'On back order' where status_id = 3`);
      expect(await text(b), 'cached until flushed').to.equal('Backordered');
      expect((await callUrl(`${a.url}/lookup-table/sales-order-status`, { method: 'DELETE', token })).status).to.equal(200);
      // The flush reaches the other instance over pub/sub a moment after the DELETE answers.
      await until(async () => (await text(b)) === 'On back order', 'the other instance to drop the table', 3_000, 50);

      await client.query(`update sales_order_status set name = 'Waiting for stock' where status_id = 3`);
      const flush = await runCli(['lookup', 'flush', 'sales-order-status', '--url', a.url], { env: d.env });
      expect(flush.code, flush.stderr).to.equal(0);
      await until(async () => (await text(b)) === 'Waiting for stock', 'the other instance to drop the table', 3_000, 50);
    } finally {
      await client.end();
    }
  });

  it('parallel updates with one revision through both instances: exactly one wins', async () => {
    const token = pairOf(await login(a, '/auth/jwt')).accessToken;
    const order = await callUrl(`${a.url}/sales-order/43700`, { token });
    const revisionNumber = order.body.result.revisionNumber as number;
    const replies = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      callUrl(`${(i % 2 ? a : b).url}/sales-order/43700`, { method: 'PUT', token, body: { status: 2, onlineOrderFlag: true, comment: `writer ${i}`, revisionNumber } })));
    expect(replies.filter((r) => r.status === 200)).to.have.length(1);
    expect(replies.filter((r) => r.status === 409)).to.have.length(15);
    const after = await callUrl(`${b.url}/sales-order/43700`, { token });
    expect(after.body.result.revisionNumber).to.equal(revisionNumber + 1);
  });
});
