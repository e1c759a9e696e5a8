import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as ioredis from 'ioredis';
import type pg from 'pg';
import { loadConfig } from '../config/load.js';
import type { ServiceModule } from '../modules.js';
import { allModules } from '../create-services.js';
import { postgresDialect } from '../storage/dialects/postgres-dialect.js';
import { sqliteDialect } from '../storage/dialects/sqlite-dialect.js';
import type { StorageDialect } from '../storage/dialects/dialect.js';
import { openStorage } from '../storage/open-storage.js';
import { pgDriver } from '../storage/pg-driver.js';
import { requireOptional } from '../optional-package.js';

/**
 * The stores a test run uses, from the environment: `RESTLAYER_TEST_STORAGE=postgres` runs test servers on PostgreSQL
 * (a fresh database each), `RESTLAYER_TEST_REDIS=true` adds Redis (a key prefix of its own each). The servers' locations
 * come from RESTLAYER_TEST_PG_URL (a database the test user may connect to and create databases from) and
 * RESTLAYER_TEST_REDIS_URL. `--store postgres` (or `sqlite`) on the test command's line chooses the store over the
 * environment (`mocha --store postgres`): an npm script that sets a variable in front of a command fails on Windows
 * cmd, and mocha leaves an option it does not know in process.argv. Not under `mocha --parallel`, whose workers have
 * their own command line: there, the variable.
 */
export type TestProvider = 'sqlite' | 'postgres';
export const testProvider: TestProvider = (storeArgument(process.argv) ?? process.env.RESTLAYER_TEST_STORAGE) === 'postgres' ? 'postgres' : 'sqlite';
export const testRedis = /^(1|true)$/i.test(process.env.RESTLAYER_TEST_REDIS ?? '');
export const pgAdminUrl = process.env.RESTLAYER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const redisUrl = process.env.RESTLAYER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The store `--store NAME` or `--store=NAME` names in `argv`, when it names one of the two (another value is a runner's own). */
export function storeArgument(argv: readonly string[]): TestProvider | undefined {
  const at = argv.findIndex((arg) => arg === '--store' || arg.startsWith('--store='));
  const value = at < 0 ? undefined : argv[at] === '--store' ? argv[at + 1] : argv[at].slice('--store='.length);
  return value === 'sqlite' || value === 'postgres' ? value : undefined;
}

/**
 * Every database this process makes is named `restlayer_t_<host>_<pid>_<random>` (templates `restlayer_tpl_…`), so
 * a cleanup can tell its own from another run's: it drops what it made, and of the rest only those of a process of
 * this host that is no longer alive (a crashed run), never another host's or a live run's.
 */
const host = createHash('sha256').update(hostname()).digest('hex').slice(0, 6);
const owner = `${host}_${process.pid}`;
const ownName = /^restlayer_(?:t|tpl)_([0-9a-f]{6})_(\d+)_[0-9a-z_]+$/;

/**
 * A test run may span several processes (mocha --parallel): `startTestRun()` in the run's first process names the
 * run after itself in RESTLAYER_TEST_RUN, which the processes it starts inherit, and makes a folder for SQLite
 * templates in RESTLAYER_TEST_TEMPLATE_DIR. Every process of the run then shares one template per store and module
 * set, made by whichever needs it first; the run's first process (the owner) removes them at `endTestRun()`. A
 * process started without them is a run of its own.
 */
const runOwner = process.env.RESTLAYER_TEST_RUN && /^[0-9a-f]{6}_\d+$/.test(process.env.RESTLAYER_TEST_RUN) ? process.env.RESTLAYER_TEST_RUN : owner;
const ownsRun = runOwner === owner;
const templatePrefix = `restlayer_tpl_${runOwner}_`;

/** The databases this process made and has not dropped yet, by admin URL. */
const made = new Map<string, { admin: string; name: string }>();
/** Whether this process has made any database on the default server: its cleanup then looks there for leftovers. */
let usedDefaultServer = false;

const databaseUrl = (admin: string, name: string) => {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
};

async function withAdmin<T>(admin: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new (pgDriver().Client)({ connectionString: admin, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function createDatabase(admin: string, name: string, template?: string): Promise<void> {
  made.set(name, { admin, name });
  if (admin === pgAdminUrl) usedDefaultServer = true;
  await withAdmin(admin, (c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
}

async function dropDatabase(admin: string, name: string): Promise<void> {
  await withAdmin(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  made.delete(name);
}

/**
 * What a template holds: the modules' names and the names of their migrations for `dialect`, and whether it is
 * seeded. Two module lists of one name that migrate differently (an older release of a module) get templates of
 * their own.
 */
function templateKey(modules: readonly ServiceModule[], dialect: StorageDialect, seeded: boolean): string {
  const schema = allModules(modules).map((m) => [m.name, Object.keys(m.migrations?.(dialect) ?? {}).sort()]);
  return `${seeded ? 's' : 'e'}${createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 12)}`;
}

/** Templates this process has made or found, by server and key: each is looked for once per process. */
const templates = new Map<string, Promise<string>>();

/**
 * The run's template database for `modules` on the server of `admin`: found, or made (migrated, seeded when
 * `seeded`) under an advisory lock so that the run's processes make it once. It is built under another name and
 * renamed when complete, so a copy never starts from a half-built template.
 */
function template(admin: string, modules: readonly ServiceModule[], seeded: boolean): Promise<string> {
  const name = `${templatePrefix}${templateKey(modules, postgresDialect, seeded)}`;
  const key = `${admin} ${name}`;
  let found = templates.get(key);
  if (!found) {
    // Whatever test runner runs this, the run's templates (and any database a test left) go when it has nothing left to do.
    if (!templates.size) process.once('beforeExit', () => void dropTestDatabases().catch(() => {}));
    found = withAdmin(admin, async (c) => {
      const lock = createHash('sha256').update(name).digest().readBigInt64BE();
      await c.query('SELECT pg_advisory_lock($1)', [lock]);
      try {
        if ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
        const building = `${name}_b${process.pid}`;
        await c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${building}`);
        const { config } = loadConfig({
          env: { NODE_ENV: 'test' },
          overrides: { Storage: { Provider: 'postgres', SampleData: seeded, Postgres: { Url: databaseUrl(admin, building) } } },
        });
        try {
          await (await openStorage(config, allModules(modules))).close();
          await c.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        } catch (err) {
          await c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`).catch(() => {});
          throw err;
        }
        return name;
      } finally {
        await c.query('SELECT pg_advisory_unlock($1)', [lock]);
      }
    });
    // A failed attempt is not kept: the next server tries again (and reports its own failure).
    found.catch(() => templates.delete(key));
    templates.set(key, found);
  }
  return found;
}

/** A check run before each test server's or test database's store is made, given the store; it throws to refuse. */
export type StoreCheck = (store: TestProvider) => void;
const storeChecks: StoreCheck[] = [];

/**
 * Registers a check that runs before restlayer/testing makes a store for a test (a server's, or a database of
 * `createTestDatabase`): a project's policy, e.g. that every test using a store says on which stores it runs.
 */
export function beforeEachStore(check: StoreCheck): void {
  storeChecks.push(check);
}

/** Runs the registered checks: a test is about to get a store of `store`. */
export function checkStore(store: TestProvider): void {
  for (const check of storeChecks) check(store);
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
  checkStore('postgres');
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
 * Drops every database this process made and still has, the run's templates when this process owns the run, and the
 * leftovers of crashed runs of this host: a name of this host whose process is gone. Another host's databases and a
 * live process's stay.
 */
export async function dropTestDatabases(): Promise<void> {
  // The default server first: a database made through another URL of it (a test's TCP proxy, closed by now) is
  // found there by its name. The owner of a run of several processes looks there too: its processes may have made
  // templates it did not.
  const runOfSeveral = ownsRun && process.env.RESTLAYER_TEST_RUN === runOwner;
  const admins = new Set([...(testProvider === 'postgres' || usedDefaultServer || made.size || runOfSeveral ? [pgAdminUrl] : []), ...[...made.values()].map((d) => d.admin)]);
  await Promise.allSettled(templates.values());
  // The run's templates serve its other processes too: only its owner removes them, at its end.
  if (ownsRun) templates.clear();
  for (const admin of admins) {
    if (admin !== pgAdminUrl && ![...made.values()].some((d) => d.admin === admin)) continue;
    // A run that never used PostgreSQL may have none to reach: only a run on it must.
    if (admin === pgAdminUrl && runOfSeveral && testProvider !== 'postgres' && !usedDefaultServer && !made.size) await withAdmin(admin, dropOwnDatabases).catch(() => {});
    else if (admin === pgAdminUrl) await withAdmin(admin, dropOwnDatabases);
    // Another server that is gone (a proxy a test closed) keeps what it holds: say so rather than fail the run.
    else await withAdmin(admin, dropOwnDatabases).catch((err: Error) => console.warn(`restlayer/testing: could not drop test databases at ${new URL(admin).host}: ${err.message}`));
  }
}

/** Drops, on one server, this process's databases and the leftovers of this host's runs whose process is gone. */
async function dropOwnDatabases(c: pg.Client): Promise<void> {
  const { rows } = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'restlayer\\_t%'");
  for (const { datname } of rows) {
    const [, nameHost, pid] = ownName.exec(datname) ?? [];
    const runTemplate = datname.startsWith(templatePrefix);
    if (made.has(datname) || (runTemplate && ownsRun) || (!runTemplate && nameHost === host && Number(pid) !== process.pid && !alive(Number(pid)))) {
      await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      made.delete(datname);
    }
  }
}

/** The Redis client's class (the optional peer `ioredis`), for the run's Redis chores. */
const redisClient = () => requireOptional<typeof ioredis>('ioredis', 'RESTLAYER_TEST_REDIS (tests on Redis)').Redis;

/** A Redis key prefix of its own for one test server. */
export const redisPrefix = () => `restlayer-test:${owner}:${randomBytes(4).toString('hex')}:`;

/** Removes every key a test server wrote under its prefix. */
export async function dropRedisKeys(prefix: string, url = redisUrl): Promise<void> {
  const client = new (redisClient())(url, { maxRetriesPerRequest: 1 });
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
  let Client: ReturnType<typeof redisClient>;
  try {
    Client = redisClient();
  } catch (err) {
    return (err as Error).message;
  }
  const client = new Client(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
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

/** The folder of the run's SQLite templates: the run's own (RESTLAYER_TEST_TEMPLATE_DIR), else this process's. */
let templateDir: string | undefined;
function sqliteTemplateDir(): string {
  const given = process.env.RESTLAYER_TEST_TEMPLATE_DIR;
  if (given && existsSync(given)) return given;
  if (!templateDir) {
    const dir = mkdtempSync(join(tmpdir(), 'restlayer-templates-'));
    templateDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return templateDir;
}

const sqliteTemplates = new Map<string, Promise<string>>();

/**
 * The run's SQLite template file for `modules`: migrated (and seeded when `seeded`) once per run, then copied for each
 * server, as PostgreSQL's template databases are. It is written under another name and renamed when complete, so a
 * process of the run never copies a half-written file; two processes that make it at once both write a whole one.
 */
export function sqliteTemplate(modules: readonly ServiceModule[], seeded: boolean): Promise<string> {
  const file = join(sqliteTemplateDir(), `${templateKey(modules, sqliteDialect, seeded)}.db`);
  let found = sqliteTemplates.get(file);
  if (!found) {
    found = (async () => {
      if (existsSync(file)) return file;
      const building = `${file}.${process.pid}.building`;
      const { config } = loadConfig({
        env: { NODE_ENV: 'test' },
        overrides: { Storage: { Provider: 'sqlite', SampleData: seeded, Sqlite: { Path: building } } },
      });
      try {
        await (await openStorage(config, allModules(modules))).close();
        // Closed, the store is one file: the write-ahead log was checkpointed into it and removed.
        if (existsSync(`${building}-wal`)) throw new Error(`restlayer/testing: ${building}-wal is left after closing the store`);
        renameSync(building, file);
      } finally {
        for (const leftover of [building, `${building}-wal`, `${building}-shm`]) rmSync(leftover, { force: true });
      }
      return file;
    })();
    found.catch(() => sqliteTemplates.delete(file));
    sqliteTemplates.set(file, found);
  }
  return found;
}

/**
 * Starts a test run that spans the processes this one starts (mocha's `--parallel` workers): they share one
 * template per store and module set (see `sqliteTemplate` and `createTestDatabase`). As mocha's global setup:
 * `export const mochaGlobalSetup = startTestRun;` in a file the run requires.
 */
export function startTestRun(): void {
  process.env.RESTLAYER_TEST_RUN = runOwner;
  process.env.RESTLAYER_TEST_TEMPLATE_DIR = sqliteTemplateDir();
}

/** Ends the run `startTestRun` started: its templates and any database left by a process of it go. */
export async function endTestRun(): Promise<void> {
  await dropTestDatabases();
  if (templateDir) rmSync(templateDir, { recursive: true, force: true });
}
