import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { connectRedis, pingRedis } from '../shared/redis.js';
import { LoginThrottle } from './login-throttle.js';

// The test run's stores, as the project's tests name them (test/support/test-stores.ts): Redis when asked for.
const testRedis = /^(1|true)$/i.test(process.env.RESTLAYER_TEST_REDIS ?? '');
const redisUrl = process.env.RESTLAYER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes the keys this test made (its own prefix), through a connection without the prefix that SCAN ignores. */
async function dropRedisKeys(prefix: string): Promise<void> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length) await client.del(...keys);
  } finally {
    client.disconnect();
  }
}

/**
 * The one case the HTTP tests cannot reach: a point given back after its window ended. Were it given back, the next
 * window would start at -1, one free guess per late give-back; so it is dropped instead.
 */
describe('LoginThrottle: a give-back after the window ended', function () {
  this.timeout(10_000);
  const settings = { accountFailures: 2, addressFailures: 100, windowSeconds: 1, maxPendingChecks: 10 };
  const prefix = `restlayer-test:login-throttle:${randomBytes(4).toString('hex')}:`;
  const redis = testRedis ? connectRedis({ url: redisUrl, prefix }) : undefined;
  before(async () => {
    if (redis) await pingRedis(redis, 3_000);
  });
  after(async () => {
    redis?.disconnect();
    if (redis) await dropRedisKeys(prefix);
  });

  it('is dropped, so the next window still allows exactly AccountFailures attempts', async () => {
    const throttle = redis ? LoginThrottle.inRedis(settings, redis) : LoginThrottle.inMemory(settings);
    const first = await throttle.reserve('late', '192.0.2.1');
    if (!first.allowed) return expect.fail('the first attempt of a window is allowed');
    // Its check "took" longer than the window: the counter has expired by the time it succeeds.
    await new Promise((r) => setTimeout(r, 1_300));
    await first.finish(true);
    const next = [];
    for (let i = 0; i < 3; i++) {
      const attempt = await throttle.reserve('late', `192.0.2.${10 + i}`);
      next.push(attempt.allowed);
      if (attempt.allowed) await attempt.finish(false);
    }
    expect(next).to.deep.equal([true, true, false]);
  });
});
