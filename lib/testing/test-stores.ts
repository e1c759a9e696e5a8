import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '../config/load.js';
import type { ServiceModule } from '../modules.js';
import { allModules } from '../create-services.js';
import { openStorage } from '../storage/open-storage.js';

/**
 * The stores a test run uses, from the environment: `RESTLAYER_TEST_STORAGE=postgres` runs test servers on PostgreSQL
 * (a fresh database each), `RESTLAYER_TEST_REDIS=true` adds Redis (a key prefix of its own each). The servers' locations
 * come from RESTLAYER_TEST_PG_URL (a database the test user may connect to and create databases from) and
 * RESTLAYER_TEST_REDIS_URL.
 */
export type TestProvider = 'sqlite' | 'postgres';
export const testProvider: TestProvider = process.env.RESTLAYER_TEST_STORAGE === 'postgres' ? 'postgres' : 'sqlite';
export const testRedis = /^(1|true)$/i.test(process.env.RESTLAYER_TEST_REDIS ?? '');
export const pgAdminUrl = process.env.RESTLAYER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const redisUrl = process.env.RESTLAYER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Every database this process makes is named `restlayer_t_<host>_<pid>_<random>` (templates `restlayer_tpl_…`), so
 * a cleanup can tell its own from another run's: it drops what it made, and of the rest only those of a process of
 * this host that is no longer alive (a crashed run), never another host's or a live run's.
 */
const host = createHash('sha256').update(hostname()).digest('hex').slice(0, 6);
const owner = `${host}_${process.pid}`;
const ownName = /^restlayer_(?:t|tpl)_([0-9a-f]{6})_(\d+)_[0-9a-z_]+$/;

/** The databases this process made and has not dropped yet, by admin URL. */
const made = new Map<string, { admin: string; name: string }>();

const databaseUrl = (admin: string, name: string) => {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
};

async function withAdmin<T>(admin: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function createDatabase(admin: string, name: string, template?: string): Promise<void> {
  await withAdmin(admin, (c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
  made.set(name, { admin, name });
}

async function dropDatabase(admin: string, name: string): Promise<void> {
  await withAdmin(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  made.delete(name);
}

/** Templates by admin URL, modules and seeding: the schema is migrated once per run, then each server gets a copy. */
const templates = new Map<string, Promise<string>>();

function template(admin: string, modules: readonly ServiceModule[], seeded: boolean): Promise<string> {
  const key = JSON.stringify([admin, modules.map((m) => m.name), seeded]);
  let found = templates.get(key);
  if (!found) {
    // Whatever test runner runs this, the run's templates (and any database a test left) go when it has nothing left to do.
    if (!templates.size) process.once('beforeExit', () => void dropTestDatabases().catch(() => {}));
    found = (async () => {
      const name = `restlayer_tpl_${owner}_${seeded ? 's' : 'e'}${templates.size}`;
      await createDatabase(admin, name);
      const { config } = loadConfig({
        env: { NODE_ENV: 'test' },
        overrides: { Storage: { Provider: 'postgres', SampleData: seeded, Postgres: { Url: databaseUrl(admin, name) } } },
      });
      const storage = await openStorage(config, allModules(modules));
      await storage.close();
      return name;
    })();
    templates.set(key, found);
  }
  return found;
}

export interface TestDatabase {
  /** The new database's URL. */
  url: string;
  /** Drops it. */
  drop(): Promise<void>;
}

/**
 * A new PostgreSQL database migrated for `modules` (with their sample data when `seeded`), a copy of a template made
 * once per run; `admin` names the server (default RESTLAYER_TEST_PG_URL).
 */
export async function createTestDatabase(modules: readonly ServiceModule[], seeded: boolean, admin = pgAdminUrl): Promise<TestDatabase> {
  const source = await template(admin, modules, seeded);
  const name = `restlayer_t_${owner}_${randomBytes(4).toString('hex')}`;
  await createDatabase(admin, name, source);
  return { url: databaseUrl(admin, name), drop: () => dropDatabase(admin, name) };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Drops every database this process made and still has (templates included), and the leftovers of crashed runs of
 * this host: a name of this host whose process is gone. Another host's databases and a live process's stay.
 */
export async function dropTestDatabases(): Promise<void> {
  // The default server first: a database made through another URL of it (a test's TCP proxy, closed by now) is
  // found there by its name.
  const admins = new Set([...(testProvider === 'postgres' || made.size ? [pgAdminUrl] : []), ...[...made.values()].map((d) => d.admin)]);
  await Promise.allSettled(templates.values());
  templates.clear();
  for (const admin of admins) {
    if (admin !== pgAdminUrl && ![...made.values()].some((d) => d.admin === admin)) continue;
    if (admin === pgAdminUrl) await withAdmin(admin, dropOwnDatabases);
    // Another server that is gone (a proxy a test closed) keeps what it holds: say so rather than fail the run.
    else await withAdmin(admin, dropOwnDatabases).catch((err: Error) => console.warn(`restlayer/testing: could not drop test databases at ${new URL(admin).host}: ${err.message}`));
  }
}

/** Drops, on one server, this process's databases and the leftovers of this host's runs whose process is gone. */
async function dropOwnDatabases(c: pg.Client): Promise<void> {
  const { rows } = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'restlayer\\_t%'");
  for (const { datname } of rows) {
    const [, nameHost, pid] = ownName.exec(datname) ?? [];
    if (made.has(datname) || (nameHost === host && Number(pid) !== process.pid && !alive(Number(pid)))) {
      await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      made.delete(datname);
    }
  }
}

/** A Redis key prefix of its own for one test server. */
export const redisPrefix = () => `restlayer-test:${owner}:${randomBytes(4).toString('hex')}:`;

/** Removes every key a test server wrote under its prefix. */
export async function dropRedisKeys(prefix: string, url = redisUrl): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
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

/** Why PostgreSQL does not answer, or undefined when it does. */
export async function postgresProblem(admin = pgAdminUrl): Promise<string | undefined> {
  try {
    await withAdmin(admin, (c) => c.query('select 1'));
    return undefined;
  } catch (err) {
    return `PostgreSQL is not reachable at ${admin} (${(err as Error).message})`;
  }
}

/** Why Redis does not answer, or undefined when it does. */
export async function redisProblem(url = redisUrl): Promise<string | undefined> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (err) {
    return `Redis is not reachable at ${url} (${(err as Error).message})`;
  } finally {
    client.disconnect();
  }
}
