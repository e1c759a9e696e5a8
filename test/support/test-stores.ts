import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '../../lib/config/load.js';
import { allModules } from '../../lib/create-services.js';
import { openStorage } from '../../lib/storage/open-storage.js';
import { application } from '../../services/index.js';

/**
 * Which stores this test run uses. `RESTLAYER_TEST_STORAGE=postgres` runs the suites on PostgreSQL (one fresh
 * database per test server, copied from a template seeded once per run); `RESTLAYER_TEST_REDIS=true` adds Redis
 * with a key prefix of its own per server. Locations come from RESTLAYER_TEST_PG_URL and RESTLAYER_TEST_REDIS_URL.
 */
export const testProvider = process.env.RESTLAYER_TEST_STORAGE === 'postgres' ? 'postgres' : 'sqlite';
export const testRedis = /^(1|true)$/i.test(process.env.RESTLAYER_TEST_REDIS ?? '');
export const pgAdminUrl = process.env.RESTLAYER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const redisUrl = process.env.RESTLAYER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const runId = `${Math.floor(Date.now() / 1000)}_${randomBytes(3).toString('hex')}`;
const databaseUrl = (name: string) => {
  const url = new URL(pgAdminUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgAdminUrl, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let templates: Partial<Record<'seeded' | 'empty', Promise<string>>> = {};

/** A template database with the schema (and the sample data when `seeded`), built once per run. */
function template(kind: 'seeded' | 'empty'): Promise<string> {
  return (templates[kind] ??= (async () => {
    const name = `restlayer_tpl_${kind}_${runId}`;
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    const { config } = loadConfig({
      env: { NODE_ENV: 'test' },
      overrides: { Storage: { Provider: 'postgres', SampleData: kind === 'seeded', Postgres: { Url: databaseUrl(name) } } },
    });
    const storage = await openStorage(config, allModules(application.modules));
    await storage.close();
    return name;
  })());
}

/** A new database for one test server: a copy of the template, so every server starts from the same state. */
export async function createTestDatabase(seeded: boolean): Promise<{ url: string; drop(): Promise<void> }> {
  const source = await template(seeded ? 'seeded' : 'empty');
  const name = `restlayer_t_${runId}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${source}`));
  return { url: databaseUrl(name), drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}) };
}

/** Removes every key a test server wrote under its prefix. */
export async function dropRedisKeys(prefix: string): Promise<void> {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

export const redisPrefix = () => `restlayer-test:${runId}:${randomBytes(4).toString('hex')}:`;

/** Whether PostgreSQL answers; the reason when it does not. */
export async function postgresProblem(): Promise<string | undefined> {
  try {
    await admin((c) => c.query('select 1'));
    return undefined;
  } catch (err) {
    return `PostgreSQL is not reachable at ${pgAdminUrl} (${(err as Error).message})`;
  }
}

/** Whether Redis answers; the reason when it does not. */
export async function redisProblem(): Promise<string | undefined> {
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

/** Drops this run's templates and databases of runs older than an hour (a crashed run leaves them behind). */
export async function dropTestDatabases(): Promise<void> {
  const names = Object.values(templates);
  templates = {};
  if (!names.length) return;
  await admin(async (c) => {
    for (const name of await Promise.allSettled(names)) {
      if (name.status === 'fulfilled') await c.query(`DROP DATABASE IF EXISTS ${name.value} WITH (FORCE)`);
    }
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^restlayer_(t|tpl_[a-z]+)_[0-9]+_'`);
    const hourAgo = Date.now() / 1000 - 3600;
    for (const { datname } of rows) {
      const started = Number(/_(\d+)_[0-9a-f]+/.exec(datname.replace(/^restlayer_tpl_[a-z]+_|^restlayer_t_/, '_'))?.[1]);
      if (started && started < hourAgo) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
  });
}
