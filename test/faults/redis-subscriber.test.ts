import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { requireServices } from '../support/hooks.js';
import { type Answer, type FaultRig, type WorkerConnection, connectionPerWorker, recovery, report, startRig, stopRig, tally } from './fault-harness.js';
import { WHY_ONE_STORE, describeOneStore, apart } from '../support/stores.js';

/**
 * Issue 38.3: after Redis connections froze (a NAT dropping flows, Redis stalled), the command connections were
 * replaced within 2 s but the pub/sub subscribers stayed dead for good: after a lookup flush, half the reads still
 * served the old table, and readiness answered 200 throughout. A subscriber sends nothing once subscribed, so no
 * command timing out ever noticed.
 */
describeOneStore(apart('faults: a Redis subscriber whose flow froze is found and replaced (serve --workers 2)'), WHY_ONE_STORE.faults, function () {
  this.timeout(120_000);
  let rig: FaultRig;
  let db: pg.Client;

  before(async function () {
    await requireServices(this, ['postgres', 'redis'], 'the Redis subscriber fault tests');
    rig = await startRig({ cli: fileURLToPath(new URL('../support/fault-cli.js', import.meta.url)) });
    db = new pg.Client({ connectionString: rig.directUrl });
    await db.connect();
  });
  after(async () => {
    for (const w of workers ?? []) w.close();
    await db?.end();
    await stopRig(rig);
  });

  let workers: WorkerConnection[];
  /** The text of sales order status 1 as `worker` serves it, or undefined when another worker answered. */
  const statusText = async (worker: WorkerConnection) => {
    const a = await worker.request('/lookup-table/sales-order-status', { headers: { Authorization: `Bearer ${rig.token}` } });
    if (a.servedBy !== worker.pid) return undefined;
    return a.status === 200 ? ((a.result!.data as { id: number; text: string }[]).find((d) => d.id === 1)!.text) : `${a.status} ${a.code}`;
  };
  /** Each needs Redis commands: a 200 says they work again on that worker. */
  const flushVia = (w: WorkerConnection) => w.request('/lookup-table/sales-order-status', { method: 'DELETE', headers: { Authorization: `Bearer ${rig.token}` } });
  const loginVia = (w: WorkerConnection) => w.request('/auth/jwt', { method: 'POST', body: { userName: 'faye', password: 'faye-password-1' } });

  it('a lookup flush after the freeze reaches every worker within 5 s', async () => {
    // Both workers have the table cached, and their subscribers are subscribed.
    expect(await recovery(rig)).to.not.equal('never');
    workers = await connectionPerWorker(rig.server.url, 2);
    const before = await statusText(workers[0]);
    for (const w of workers) expect(await statusText(w)).to.equal(before);

    // Every Redis flow dies silently for good; new connections pass.
    await rig.redis.mode('freeze');
    await rig.redis.mode('pass');
    const frozeAt = Date.now();
    const renamed = `Renamed after the freeze ${frozeAt}`;
    await db.query('update sales_order_status set name = $1 where status_id = 1', [renamed]);
    // `DELETE /lookup-table/TYPE` (what `lookup flush` asks) on the first worker, and a login on the other, each
    // retried while that worker's command connection is replaced: once they answer 200, Redis commands work there.
    // Only the first worker dropped the table itself; the other hears of it through its subscriber, or not at all.
    const probes: Answer[] = [];
    for (const [w, probe] of [[workers[0], flushVia], [workers[1], loginVia]] as const) {
      for (let a = await probe(w); ; a = await probe(w)) {
        probes.push(a);
        if ((a.status === 200 && a.servedBy === w.pid) || Date.now() - frozeAt > 20_000) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(probes.at(-1)!.status, `Redis commands on worker ${w.pid}`).to.equal(200);
    }
    const commandsBackMs = Date.now() - frozeAt;

    // Until every worker serves the new text (each asked on its own connection), with readiness asked of each meanwhile.
    const readiness = new Map(workers.map((w) => [w.pid, [] as (number | 'hang')[]]));
    let reachedMs: number | undefined;
    const seen: string[] = [];
    while (Date.now() - frozeAt < 20_000) {
      const texts = await Promise.all(workers.map(statusText));
      seen.push(...texts.map((t) => (t === renamed ? 'new' : t === before ? 'old' : String(t))));
      if (reachedMs === undefined && texts.every((t) => t === renamed)) reachedMs = Date.now() - frozeAt;
      for (const w of workers) {
        const r = await w.request('/health/ready');
        if (r.servedBy === w.pid) readiness.get(w.pid)!.push(r.status);
      }
      // Done once every worker serves the new table and says it is ready.
      if (reachedMs !== undefined && workers.every((w) => readiness.get(w.pid)!.at(-1) === 200)) break;
    }
    const counted = (list: (string | number)[]) => [...list.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<string | number, number>())]
      .map(([t, n]) => `${t}×${n}`).join(', ');
    report(`redis freeze: commands back on both workers ${commandsBackMs} ms after it (flush and login ${tally(probes)}); reads ${counted(seen)}; `
      + `every worker served the flushed table ${reachedMs} ms after the freeze; readiness after the commands were back: `
      + workers.map((w) => `worker ${w.pid}: ${counted(readiness.get(w.pid)!)}`).join('; '));
    expect(reachedMs, 'the flush reached every worker within 5 s').to.be.a('number').and.at.most(5_000);
    expect(await recovery(rig)).to.not.equal('never');
  });

  it('readiness answers 503 while a subscriber cannot hear though Redis commands work, and 200 once it hears again', async () => {
    // Subscriber flows, existing and new, deliver nothing; command flows pass.
    await rig.redis.mode('freeze-subscribers');
    const since = Date.now();
    const notReady = new Set<string>();
    while (notReady.size < workers.length && Date.now() - since < 15_000) {
      for (const w of workers) {
        const r = await w.request('/health/ready');
        if (r.servedBy === w.pid && r.status === 503) notReady.add(w.pid);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const notReadyMs = Date.now() - since;
    // It stays so while the subscribers cannot hear, though Redis answers each worker's commands (a login needs them).
    const meanwhile: (number | string)[] = [];
    for (let i = 0; i < 3; i++) {
      for (const w of workers) {
        const login = await loginVia(w);
        const r = await w.request('/health/ready');
        meanwhile.push(`login ${login.status}, ready ${r.status}`);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    await rig.redis.mode('pass');
    const ms = await recovery(rig);
    report(`redis subscribers unable to hear: every worker not ready after ${notReadyMs} ms; then ${[...new Set(meanwhile)].join('; ')}; `
      + `ready again ${ms} ms after they could hear`);
    expect([...notReady].sort(), 'workers that said 503').to.deep.equal(workers.map((w) => w.pid).sort());
    expect([...new Set(meanwhile)]).to.deep.equal(['login 200, ready 503']);
    expect(ms).to.not.equal('never');
  });

  it('logs the silent subscriber at warn, and when it hears again', async () => {
    const log = rig.server.stderr();
    const silent = log.split('\n').filter((l) => l.includes('Redis subscriber silent'));
    report(`log: ${silent.length} "subscriber silent" lines, ${log.split('\n').filter((l) => l.includes('Redis subscriber hears again')).length} "hears again"`);
    expect(silent).to.not.be.empty;
    expect(silent[0]).to.contain('"level":"warn"').and.to.contain('Check');
    expect(log).to.contain('Redis subscriber hears again');
  });
});
