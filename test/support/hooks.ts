import { dropTestDatabases, postgresProblem, testProvider, testRedis, redisUrl } from './test-stores.js';
import { Redis } from 'ioredis';

async function redisProblem(): Promise<string | undefined> {
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (err) {
    return `Redis is not reachable at ${redisUrl} (${(err as Error).message})`;
  } finally {
    client.disconnect();
  }
}

/**
 * Root hooks of every run. A run on PostgreSQL or Redis whose service is missing is skipped with the reason,
 * except under CI (CI=true), where a missing service is a failure.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    const problems = [testProvider === 'postgres' ? await postgresProblem() : undefined, testRedis ? await redisProblem() : undefined].filter(Boolean);
    if (!problems.length) return;
    if (/^(1|true)$/i.test(process.env.CI ?? '')) throw new Error(`${problems.join('; ')}. Under CI a missing service is a failure.`);
    console.warn(`\n  SKIPPED: the ${testProvider}${testRedis ? ' + Redis' : ''} suites need a service that is missing: ${problems.join('; ')}.\n`);
    this.skip();
  },
  async afterAll() {
    if (testProvider === 'postgres') await dropTestDatabases();
  },
};
