import { expect } from 'chai';
import { requireServices } from '../support/hooks.js';
import { type Answer, type FaultRig, call, load, misbehaving, recovery, report, startRig, stopRig, tally } from './fault-harness.js';
import { WHY_ONE_STORE, describeOneStore, apart } from '../support/stores.js';

/**
 * Issue 38.5: after a blackhole ended, a list read took a connection of the reader pool that the blackhole had frozen,
 * waited its whole bound and answered 503. During the blackhole only the main pool (writes, reads by id, readiness)
 * met faults; the reader pool, which lists use, had met none, so its idle connections did not look suspect.
 */
describeOneStore(apart('faults: no connection frozen by a PostgreSQL blackhole is handed out after it ends (serve --workers 2)'), WHY_ONE_STORE.faults, function () {
  this.timeout(120_000);
  let rig: FaultRig;

  before(async function () {
    await requireServices(this, ['postgres', 'redis'], 'the PostgreSQL pool fault tests');
    rig = await startRig();
  });
  after(() => stopRig(rig));

  // Lists read through the reader pool; each on a new connection, so both workers' pools take their share.
  const list = () => call(rig, '/sales-order?take=5&status=5', { newConnection: true });
  const readById = () => call(rig, '/sales-order/43659', { newConnection: true });

  it('lists after the blackhole answer 200: the reader pool drops the connections the blackhole froze', async () => {
    // Both workers' reader pools full of idle connections (5 each).
    const warm = await load(40, 20, list);
    expect(tally(warm)).to.equal('200×40');
    await rig.pg.mode('blackhole');
    // Only the main pool meets the fault: reads by id, and readiness.
    const during = await load(6, 6, readById);
    await rig.pg.mode('pass');
    const ms = await recovery(rig);
    expect(ms, 'ready again').to.not.equal('never');
    const after: Answer[] = await load(40, 10, list);
    report(`pg blackhole, only the main pool used: ${tally(during)}; ready again in ${ms} ms; lists afterwards: ${tally(after)}`);
    expect(tally(during)).to.match(/^503 Storage_Unavailable×6$/);
    expect(misbehaving(after, [200]).map((a) => `${a.status} ${a.code ?? ''}`)).to.deep.equal([]);
    expect(tally(after)).to.equal('200×40');
  });
});
