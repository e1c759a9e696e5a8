import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { connectRedis, pingRedis } from '../shared/redis.js';
import { dropRedisKeys, redisUrl, testRedis } from './test-stores.js';

/**
 * For a unit suite of the layer's (called inside its `describe`): a Redis connection of its own under a key prefix of
 * its own (`restlayer-test:<label>:<random>:`), pinged before the suite and its keys dropped after; undefined in a
 * run without Redis, where the suite runs on what stands in for it (memory) or is skipped.
 */
export function suiteRedis(label: string): Redis | undefined {
  if (!testRedis) return undefined;
  const prefix = `restlayer-test:${label}:${randomBytes(4).toString('hex')}:`;
  const redis = connectRedis({ url: redisUrl, prefix });
  before(async () => {
    await pingRedis(redis, 3_000);
  });
  after(async () => {
    redis.disconnect();
    await dropRedisKeys(prefix);
  });
  return redis;
}
