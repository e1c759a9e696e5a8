import { join } from 'node:path';
import { expect } from 'chai';
import { type Deployment, deployment } from '../support/cluster-env.js';
import { requireServices } from '../support/hooks.js';
import { type UrlReply, callUrl } from '../support/http.js';
import { killChildren, seededSqlite, type ServeProcess, sqliteServeEnv, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { dropRedisKeys } from '../support/test-stores.js';
import { mint, newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const local = ['--host', '127.0.0.1', '--port', '0'];
const order = (comment: string) => ({ customerId: 11003, status: 1, onlineOrderFlag: false, comment });
const answerOf = (reply: UrlReply) => ({ status: reply.status, location: reply.headers.get('Location'), text: reply.text });

/** The same POST with one key, `n` at once, spread over `urls`: one order is written and every answer is the first one's. */
function togetherTests(urls: () => string[], tokenFor: (sub?: string) => string) {
  const token = () => tokenFor();
  const orderCount = async () => {
    const reply = await callUrl(`${urls()[0]}/sales-order?getTotalCount=true&take=1`, { token: token() });
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.totalCount as number;
  };

  for (const n of [2, 20]) {
    it(`${n} requests with one key at once, over every process, write once`, async () => {
      const before = await orderCount();
      const servers = urls();
      const replies = await Promise.all(Array.from({ length: n }, (_, i) => callUrl(`${servers[i % servers.length]}/sales-order`, {
        method: 'POST', token: token(), body: order(`workers ${n}`), headers: { 'Idempotency-Key': `workers-${n}` },
      })));
      expect(await orderCount()).to.equal(before + 1);
      const answers = replies.map(answerOf);
      expect(answers[0].status, answers[0].text).to.equal(201);
      for (const answer of answers) expect(answer).to.deep.equal(answers[0]);
    });
  }

  it('different callers with one key, over every process, each write their own', async () => {
    const before = await orderCount();
    const servers = urls();
    const replies = await Promise.all(['ann', 'bob', 'cem', 'dee'].map((sub, i) => callUrl(`${servers[i % servers.length]}/sales-order`, {
      method: 'POST', token: tokenFor(sub), body: order('shared key'),
      headers: { 'Idempotency-Key': 'one-key-for-all' },
    })));
    expect(replies.map((r) => r.status)).to.deep.equal([201, 201, 201, 201]);
    expect(new Set(replies.map((r) => r.headers.get('Location'))).size).to.equal(4);
    expect(await orderCount()).to.equal(before + 4);
  });
}

describeOneStore('Idempotency-Key across processes: serve --workers 2 on SQLite', WHY_ONE_STORE.idempotencyWorkers, function () {
  this.timeout(60_000);
  let server: ServeProcess;
  const key = newKey();
  before(async () => {
    const dir = makeTempDir();
    server = await startServe(['--workers', '2', ...local], { cwd: dir, env: sqliteServeEnv(await seededSqlite(join(dir, 'workers.db')), key, { Log__Level: 'info' }) });
    await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'two workers serving');
  });
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  togetherTests(() => [server.url], (sub) => mint({ key, issuer: 'restlayer', audience: 'restlayer', claims: sub ? { sub } : {} }));
});

describeOneStore('Idempotency-Key across instances: two instances (one with --workers 2) on PostgreSQL', WHY_ONE_STORE.idempotencyWorkers, function () {
  this.timeout(60_000);
  let d: Deployment;
  let a: ServeProcess;
  let b: ServeProcess;
  before(async function () {
    await requireServices(this, ['postgres', 'redis'], 'the multi-instance idempotency tests');
    d = await deployment();
    [a, b] = await Promise.all([startServe(['--workers', '2', ...local], { env: d.env }), startServe(local, { env: d.env })]);
  });
  after(async () => {
    await killChildren();
    if (d) {
      await d.drop();
      await dropRedisKeys(d.prefix);
    }
  });

  togetherTests(() => [a.url, b.url], (sub) => mint({ key: d.key, issuer: d.issuer, audience: d.audience, claims: sub ? { sub } : {} }));
});
