import { expect } from 'chai';
import { suiteRedis } from '../testing/suite-redis.js';
import { LoginThrottle } from './login-throttle.js';

// Redis when the test run asks for it; the suites carry the tag of the suites that run on every store
// (test/support/stores.ts), so the PostgreSQL + Redis run takes them.

/**
 * The cases the HTTP tests cannot reach: a point given back after its counter is gone, at the window's end or by
 * `user unlock`. A give-back that made the counter again would start it at -1, one free guess per late give-back; it
 * is dropped (window ended) or taken back (unlocked) instead.
 */
describe('LoginThrottle: a point given back after its counter is gone @stores', function () {
  this.timeout(10_000);
  const settings = { accountFailures: 2, addressFailures: 100, windowSeconds: 1, maxPendingChecks: 10, keySecret: 'a test secret of at least thirty-two bytes' };
  const redis = suiteRedis('login-throttle');
  const throttleOf = (windowSeconds: number) => {
    const s = { ...settings, windowSeconds };
    return redis ? LoginThrottle.inRedis(s, redis) : LoginThrottle.inMemory(s);
  };
  /** Three failed attempts on `account` after it: which were allowed. */
  const nextAttempts = async (throttle: LoginThrottle, account: string) => {
    const allowed = [];
    for (let i = 0; i < 3; i++) {
      const attempt = await throttle.reserve(account, `192.0.2.${10 + i}`);
      allowed.push(attempt.allowed);
      if (attempt.allowed) await attempt.finish('failure');
    }
    return allowed;
  };

  it('after the window ended: dropped, so the next window still allows exactly AccountFailures attempts', async () => {
    const throttle = throttleOf(1);
    const first = await throttle.reserve('late', '192.0.2.1');
    if (!first.allowed) return expect.fail('the first attempt of a window is allowed');
    // Its check "took" longer than the window: the counter has expired by the time it succeeds.
    await new Promise((r) => setTimeout(r, 1_300));
    await first.finish('success');
    expect(await nextAttempts(throttle, 'late')).to.deep.equal([true, true, false]);
  });

  it('after an unlock: the account has exactly AccountFailures attempts, as a fresh counter', async () => {
    const throttle = throttleOf(60);
    const first = await throttle.reserve('unlocked', '192.0.2.1');
    if (!first.allowed) return expect.fail('the first attempt of a window is allowed');
    // An operator unlocks the account while this check is in hand; then the check ends with the right password.
    await throttle.unlock('unlocked');
    await first.finish('success');
    expect(await nextAttempts(throttle, 'unlocked')).to.deep.equal([true, true, false]);
  });
});

/**
 * A burst of right passwords: a refusal taken while the counter was full of checks in hand must announce a short
 * wait, also when those checks end (and give their points back) before the refusal looks for them. Under load that
 * look comes late; the HTTP burst tests met it as `Retry-After: 900` once in a CI run.
 */
describe('LoginThrottle: a refusal whose checks in hand ended before it looked @stores', () => {
  const settings = { accountFailures: 1, addressFailures: 100, windowSeconds: 900, maxPendingChecks: 10, keySecret: 'a test secret of at least thirty-two bytes' };

  it('announces Retry-After 1 (the counter has room again), not the window\'s end', async () => {
    const throttle = LoginThrottle.inMemory(settings);
    const first = await throttle.reserve('pia', '192.0.2.1');
    if (!first.allowed) return expect.fail('the first attempt is allowed');
    // The moment between the refused take and the look: the first check ends there, with the right password.
    const checking = (throttle as unknown as { checking: { any(key: string): Promise<boolean> } }).checking;
    const look = checking.any.bind(checking);
    checking.any = async (key) => {
      await first.finish('success');
      return look(key);
    };
    const second = await throttle.reserve('pia', '192.0.2.2');
    expect(second).to.deep.equal({ allowed: false, reason: 'account', retryAfter: 1 });
  });

  it('still announces the window\'s end when the counter is full of failures', async () => {
    const throttle = LoginThrottle.inMemory(settings);
    const first = await throttle.reserve('olga', '192.0.2.1');
    if (!first.allowed) return expect.fail('the first attempt is allowed');
    await first.finish('failure');
    const second = await throttle.reserve('olga', '192.0.2.2');
    expect(second.allowed).to.equal(false);
    expect(second.allowed === false && second.retryAfter).to.be.greaterThan(800);
  });
});
