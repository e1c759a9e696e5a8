import { expect } from 'chai';
import pg from 'pg';
import { until } from '../support/wait.js';
import { dropRedisKeys } from '../support/test-stores.js';
import { requireServices } from '../support/hooks.js';
import { killChildren } from '../support/processes.js';
import { type Answer, type FaultRig, call, load, misbehaving, ordersSaved, ready, recovery, report, startRig, tally } from './fault-harness.js';
import { WHY_ONE_STORE, describeOneStore, apart } from '../support/stores.js';

/**
 * Network faults between a `serve --workers 2` deployment and its PostgreSQL and Redis, injected by TCP proxies:
 * every fault answers 503 with Retry-After (never 500, never a hang), readiness follows it within its bound, the
 * server recovers by itself once the fault ends, and no acknowledged write is lost.
 */
describeOneStore(apart('faults: PostgreSQL and Redis behind a faulty network (serve --workers 2)'), WHY_ONE_STORE.faults, function () {
  this.timeout(120_000);
  let rig: FaultRig;
  let run = 0;
  const acknowledged: number[] = [];

  before(async function () {
    await requireServices(this, ['postgres', 'redis'], 'the fault suite');
    rig = await startRig();
  });
  after(async () => {
    await killChildren();
    await rig?.pg.close();
    await rig?.redis.close();
    await rig?.d.drop();
    if (rig) await dropRedisKeys(rig.d.prefix);
  });

  const createOrder = async () => {
    const a = await call(rig, '/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true, comment: `fault-run-${++run}` } });
    if (a.status === 201) acknowledged.push(a.result!.salesOrderId as number);
    return a;
  };
  const readOrder = () => call(rig, '/sales-order/43659');
  const login = () => call(rig, '/auth/jwt', { method: 'POST', auth: 'none', body: { userName: 'faye', password: 'faye-password-1' } });

  it('is ready and serves while the network is sound', async () => {
    expect((await ready(rig)).status).to.equal(200);
    expect((await createOrder()).status).to.equal(201);
  });

  it('connections reset mid-transaction: 503 with Retry-After (Storage_OutcomeUnknown when a COMMIT was hit), never 500, and it recovers', async () => {
    const answers: Answer[] = [];
    const between: Answer[] = [];
    for (let i = 0; i < 20; i++) {
      // Eight writes in flight, every connection reset under them, then one write on its own: it finds the pool whole.
      const wave = load(8, 8, createOrder);
      await new Promise((r) => setTimeout(r, 20 + 10 * (i % 5)));
      await rig.pg.mode('reset');
      await rig.pg.mode('pass');
      answers.push(...await wave);
      between.push(await createOrder());
    }
    const ms = await recovery(rig);
    const after = await createOrder();
    report(`pg reset ×20 during writes: ${tally(answers)}; the write after each reset: ${tally(between)}; ready again in ${ms} ms; then ${after.status}`);
    expect(ms, 'ready again').to.not.equal('never');
    expect(misbehaving(answers, [201]).map((a) => `${a.status} ${a.code}`)).to.deep.equal([]);
    expect(answers.filter((a) => a.status === 503).map((a) => a.code)).to.satisfy((codes: string[]) =>
      codes.every((c) => c === 'Storage_Unavailable' || c === 'Storage_OutcomeUnknown'));
    // The resets landed while writes were in flight, or this proves nothing.
    expect(answers.filter((a) => a.status === 503)).to.not.be.empty;
    expect(tally(between)).to.equal('201×20');
    expect(after.status).to.equal(201);
  });

  it('a connection lost during COMMIT answers 503 Storage_OutcomeUnknown with Retry-After: the write may have been saved', async () => {
    const admin = new pg.Client({ connectionString: rig.directUrl });
    await admin.connect();
    try {
      // A deferred trigger makes this one order's COMMIT take a moment, so the reset surely lands inside it.
      await admin.query(`create function fault_slow_commit() returns trigger language plpgsql as $$
        begin if new.comment = 'slow-commit' then perform pg_sleep(0.8); end if; return null; end $$`);
      await admin.query(`create constraint trigger fault_slow_commit after insert on sales_order deferrable initially deferred
        for each row execute function fault_slow_commit()`);
      const pending = call(rig, '/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true, comment: 'slow-commit' } });
      await until(async () => Number((await admin.query(`select count(*) as n from pg_stat_activity where wait_event = 'PgSleep'`)).rows[0].n) > 0,
        'the COMMIT to run', 10_000, 10);
      await rig.pg.mode('reset');
      await rig.pg.mode('pass');
      const answer = await pending;
      const saved = Number((await admin.query(`select count(*) as n from sales_order where comment = 'slow-commit'`)).rows[0].n);
      report(`pg reset during COMMIT: ${answer.status} ${answer.code} (Retry-After ${answer.retryAfter}); saved: ${saved}`);
      expect([answer.status, answer.code]).to.deep.equal([503, 'Storage_OutcomeUnknown']);
      expect(answer.retryAfter).to.match(/^\d+$/);
    } finally {
      await admin.query('drop trigger if exists fault_slow_commit on sales_order');
      await admin.query('drop function if exists fault_slow_commit()');
      await admin.end();
    }
  });

  it('flows frozen for good (a NAT dropped them): the pools replace those connections, nothing stays stuck, and it recovers', async () => {
    const answers: Answer[] = [];
    for (let round = 0; round < 2; round++) {
      // Fill both pools of both workers with connections, freeze them all, then keep using the server.
      await load(24, 24, (i) => (i % 2 ? readOrder() : createOrder()));
      await rig.pg.mode('freeze');
      await rig.pg.mode('pass');
      answers.push(...await load(24, 12, (i) => (i % 2 ? readOrder() : createOrder())));
    }
    const ms = await recovery(rig);
    // Every pooled connection was frozen twice over: a pool that kept them would have none left for these.
    const afterwards = await load(24, 24, (i) => (i % 2 ? readOrder() : createOrder()));
    report(`pg freeze ×2 (flows dead for good): ${tally(answers)}; ready in ${ms} ms; afterwards ${tally(afterwards)}`);
    expect(ms, 'ready again').to.not.equal('never');
    expect(misbehaving(answers, [200, 201]).map((a) => `${a.status} ${a.code}`)).to.deep.equal([]);
    expect(afterwards.map((a) => a.status)).to.satisfy((s: number[]) => s.every((x) => x === 200 || x === 201));
  });

  it('PostgreSQL blackholed (accepts, never answers): reads, writes and readiness answer 503 within their bounds, and it recovers', async () => {
    await rig.pg.mode('blackhole');
    const during = await load(12, 6, (i) => (i % 2 ? readOrder() : createOrder()));
    const readyDuring = await load(3, 3, () => ready(rig));
    // Liveness is not a store's: it answers meanwhile.
    const live = await call(rig, '/health/live', { auth: 'none' });
    await rig.pg.mode('pass');
    const ms = await recovery(rig);
    const after = await createOrder();
    report(`pg blackhole: ${tally(during)}; ready during ${tally(readyDuring)}; ready again in ${ms} ms; then ${after.status}`);
    expect(ms, 'ready again').to.not.equal('never');
    expect(tally(during)).to.match(/^503 Storage_(Unavailable|OutcomeUnknown)×\d+(, 503 Storage_(Unavailable|OutcomeUnknown)×\d+)?$/);
    expect(misbehaving(during, [])).to.deep.equal([]);
    expect(readyDuring.map((a) => [a.status, a.code])).to.deep.equal(Array(3).fill([503, 'Health_NotReady']));
    expect(live.status).to.equal(200);
    expect(after.status).to.equal(201);
  });

  it('Redis blackholed: logins and cookie requests answer 503 (not 429, not a hang), readiness 503, and it recovers', async () => {
    const cookieLogin = await call(rig, '/auth/cookie', { method: 'POST', auth: 'none', body: { userName: 'faye', password: 'faye-password-1' } });
    const cookie = (cookieLogin.setCookie ?? []).map((c) => c.split(';')[0]).join('; ');
    expect(cookieLogin.status).to.equal(200);
    await rig.redis.mode('blackhole');
    // A stream of logins, as many at once as the login bound lets wait: none may be turned away as throttled
    // (they would be if each held its place while Redis does not answer), and none may count as an attempt.
    const logins = await load(16, 4, login);
    const cookieCalls = await load(4, 4, () => call(rig, '/sales-order/43659', { auth: 'none', cookie }));
    const readyDuring = await load(3, 3, () => ready(rig));
    // A bearer read needs no Redis: it is served meanwhile.
    const bearer = await readOrder();
    await rig.redis.mode('pass');
    const ms = await recovery(rig);
    const after = await login();
    report(`redis blackhole: logins ${tally(logins)}; cookie calls ${tally(cookieCalls)}; ready during ${tally(readyDuring)}; `
      + `bearer read ${bearer.status}; ready again in ${ms} ms; then login ${after.status}`);
    expect(ms, 'ready again').to.not.equal('never');
    expect(tally(logins)).to.equal('503 Storage_Unavailable×16');
    expect(misbehaving(logins, [])).to.deep.equal([]);
    expect(tally(cookieCalls)).to.equal('503 Storage_Unavailable×4');
    expect(readyDuring.map((a) => [a.status, a.code])).to.deep.equal(Array(3).fill([503, 'Health_NotReady']));
    expect(bearer.status).to.equal(200);
    expect(after.status).to.equal(200);
  });

  it('logs each outage at warn, once per episode and process, saying what to check', () => {
    const lines = rig.server.stderr().split('\n');
    const pgLines = lines.filter((l) => l.includes('PostgreSQL unavailable'));
    const redisLines = lines.filter((l) => l.includes('Redis unavailable'));
    report(`log: ${pgLines.length} PostgreSQL and ${redisLines.length} Redis outage lines for 4 PostgreSQL and 1 Redis episodes, 2 workers`);
    // Log:Level is warn in this deployment: what shows is at warn or above.
    expect(pgLines).to.not.be.empty;
    expect(redisLines).to.not.be.empty;
    expect(pgLines[0]).to.match(/"level":"warn"/).and.to.contain('Check');
    // Dozens of failed operations per episode, yet few lines: at most one per episode and worker.
    expect(pgLines.length).to.be.at.most(4 * 2);
    expect(redisLines.length).to.be.at.most(2);
    expect(lines.filter((l) => /unhandled exception/.test(l))).to.deep.equal([]);
  });

  it('no acknowledged write was lost, and SIGTERM ends the server by itself', async () => {
    const saved = await ordersSaved(rig, acknowledged);
    report(`writes: ${acknowledged.length} acknowledged, ${acknowledged.length - saved} lost`);
    expect(saved).to.equal(acknowledged.length);
    rig.server.child.kill('SIGTERM');
    const guard = setTimeout(() => rig.server.child.kill('SIGKILL'), 20_000);
    const exit = await rig.server.exited;
    clearTimeout(guard);
    expect(exit).to.deep.equal({ code: 0, signal: null });
  });
});
