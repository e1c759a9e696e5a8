import { expect } from 'chai';
import { requireServices } from '../support/hooks.js';
import { sampleSum, scrape } from '../support/metrics.js';
import { type Answer, type FaultRig, call, load, recovery, report, startRig, stopRig, tally } from './fault-harness.js';
import { WHY_ONE_STORE, describeOneStore, apart } from '../support/stores.js';

/**
 * Issue 38.1: logins while PostgreSQL is unreachable answer 503 (the user cannot be read) and must spend nothing: kept
 * as failures, 5 of them locked the account for the window (the right password refused with 429, Retry-After ~900 s)
 * and 20 locked out everyone behind the address. Each throttle store the layer has is tried: Redis, and the primary
 * of `serve --workers 2` without it.
 */
for (const redis of [true, false]) {
  describeOneStore(apart(`faults: logins while PostgreSQL is unreachable spend no throttle points (serve --workers 2, throttle ${redis ? 'in Redis' : 'on the primary'})`), WHY_ONE_STORE.faults, function () {
    this.timeout(120_000);
    let rig: FaultRig;

    before(async function () {
      await requireServices(this, redis ? ['postgres', 'redis'] : ['postgres'], 'the login outage tests');
      rig = await startRig({ redis, metrics: true });
    });
    after(() => stopRig(rig));

    // Each login on a new connection, so both workers take their share.
    const login = (userName: string, password: string) =>
      call(rig, '/auth/jwt', { method: 'POST', auth: 'none', newConnection: true, body: { userName, password } });
    const right = () => login('faye', 'faye-password-1');

    it('refused connections: 30 logins from one address (25 of one account) answer 503, never 429', async () => {
      expect((await right()).status).to.equal(200);
      await rig.pg.mode('refuse');
      // One at a time: the point is the count, not a burst (a burst past the check bound is refused as busy, by design).
      const during: Answer[] = [];
      for (let i = 0; i < 30; i++) during.push(await (i < 25 ? right() : login(`nobody-${i}`, 'whatever-password')));
      report(`PostgreSQL refusing: 30 logins answered ${tally(during)}`);
      expect(tally(during)).to.equal('503 Storage_Unavailable×30');
      expect(during.every((a) => a.retryAfter)).to.equal(true);
    });

    it('once PostgreSQL is back, the right password logs in within 2 s, with no 429 on the way', async () => {
      await rig.pg.mode('pass');
      const back = Date.now();
      const answers: Answer[] = [];
      let ms: number | undefined;
      while (Date.now() - back < 10_000) {
        const a = await right();
        answers.push(a);
        if (a.status === 200) {
          ms = Date.now() - back;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      report(`login after PostgreSQL returned: ${tally(answers)}, the first 200 after ${ms} ms`);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 503).map((a) => `${a.status} ${a.code}`)).to.deep.equal([]);
      expect(ms, 'a login within 2 s').to.be.a('number').and.at.most(2_000);
      // Every worker: each reconnects on its own.
      expect(await recovery(rig)).to.not.equal('never');
      const each = await load(4, 1, right);
      expect(each.map((a) => a.status)).to.deep.equal([200, 200, 200, 200]);
    });

    it('blackholed PostgreSQL: logins answer 503 within their bound and count nothing either', async () => {
      await rig.pg.mode('blackhole');
      // Six of one account, three at a time: past AccountFailures (5), had they counted.
      const during = await load(6, 3, right);
      await rig.pg.mode('pass');
      expect(await recovery(rig)).to.not.equal('never');
      report(`PostgreSQL blackholed: 6 logins answered ${tally(during)}`);
      expect(tally(during)).to.equal('503 Storage_Unavailable×6');
      expect((await right()).status).to.equal(200);
    });

    it('the outages counted nothing: the account still has all its failures, and other users of the address log in', async () => {
      // Four wrong passwords are within AccountFailures (5): had the outages' logins counted, these would be 429.
      const wrong = await load(4, 1, () => login('faye', 'not-the-password'));
      expect(wrong.map((a) => `${a.status} ${a.code}`)).to.deep.equal(Array(4).fill('401 Login_InvalidCredentials'));
      expect((await right()).status).to.equal(200);
      // The address: 36 outage logins are past AddressFailures (20) had they counted.
      const others = await load(3, 1, (i) => login(`other-${i}`, 'whatever-password'));
      expect(others.map((a) => a.status)).to.deep.equal([401, 401, 401]);
    });

    it('metrics count the logins that could not be checked as outcome="unavailable"', async () => {
      const { text } = await scrape(rig.metricsUrl!);
      const unavailable = sampleSum(text, 'restlayer_logins_total', { outcome: 'unavailable' });
      report(`restlayer_logins_total: unavailable ${unavailable}, throttled ${sampleSum(text, 'restlayer_logins_total', { outcome: 'throttled' })}`);
      expect(unavailable).to.be.at.least(36);
      expect(sampleSum(text, 'restlayer_logins_total', { outcome: 'throttled' })).to.equal(0);
    });
  });
}
