import { Kysely, PostgresDialect, sql } from 'kysely';
import { pgDriver } from './pg-driver.js';
import { postgresDialect } from './dialects/postgres-dialect.js';
import { faultEpisodes } from './fault-episodes.js';
import { boundedPool } from './postgres-pool.js';
import { DEFAULT_QUERY_TIMEOUT_MS, type Storage } from './storage.js';
import type { StorageProvider } from './storage-provider.js';
import { StatementCount } from './statement-count.js';
import { StoreUnavailableError } from './store-faults.js';
import type { Tables } from './tables.js';

/** An arbitrary constant naming restlayer's advisory lock: one instance at a time migrates and seeds. */
const SETUP_LOCK = 7_274_001;
/** PostgreSQL's SQLSTATE for a connection to a database that does not exist (invalid_catalog_name). */
const MISSING_DATABASE = '3D000';

/** The SQLSTATEs along an error and its causes (a fault is reported wrapped, its driver's error as the cause). */
function sqlStates(err: unknown): string[] {
  const states: string[] = [];
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') states.push(e.code);
  }
  return states;
}
/** Past the server's statement_timeout, so a slow read still answers 57014 (Request_Timeout) from the server itself. */
const CLIENT_GRACE_MS = 1_000;
/** Readiness answers within this long whatever the network does. */
const PING_BOUND_MS = 1_500;

export interface PostgresOptions {
  /** Infrastructure faults, once per episode (and when it ends). */
  warn?: (text: string) => void;
  /**
   * Storage:QueryTimeoutSeconds (default DEFAULT_QUERY_TIMEOUT_MS): the reader's statement_timeout (the server cancels,
   * SQLSTATE 57014), and with a second's grace the client-side bound of every wait on PostgreSQL (connect, acquire,
   * statement, commit) for both pools, which holds when the server never hears or never answers.
   */
  queryTimeoutMs?: number;
  /** Storage:Postgres:PoolSize (default 10): the pool's connections; the reader's pool holds half as many. */
  poolSize?: number;
  /** Storage:Postgres:PreparedStatements (default true): see BoundedPoolOptions.prepare. */
  preparedStatements?: boolean;
}

/** The scale-out store: a connection pool; every instance and worker shares the same database. */
export function openPostgres(url: string, options: PostgresOptions = {}): Storage {
  const timeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const episodes = faultEpisodes('PostgreSQL', 'that the server runs and that the network between it and this host passes traffic (Storage:Postgres:Url)',
    options.warn ?? (() => {}));
  // One server, one network path: a fault either pool meets makes both pools' idle connections suspect.
  const faultClock = { lastFault: 0 };
  const pool = (max: number, statementTimeoutMs?: number, planEachRun = false) => boundedPool({
    url, max, statementTimeoutMs, prepare: options.preparedStatements ?? true, planEachRun, faultClock,
    acquireTimeoutMs: timeoutMs + CLIENT_GRACE_MS,
    queryTimeoutMs: timeoutMs + CLIENT_GRACE_MS,
    onFault: (err) => episodes.fault(err.message),
    onAnswer: () => episodes.answered(),
    onIdleError: (err) => episodes.fault(`idle connection lost (${err.message})`),
  });
  const count = new StatementCount();
  const poolSize = options.poolSize ?? 10;
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: pool(poolSize) }), log: count.log });
  const reader = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: pool(Math.ceil(poolSize / 2), timeoutMs, true) }), log: count.log });
  return {
    db,
    reader,
    statements: count,
    dialect: postgresDialect,
    values: postgresDialect,
    async ping() {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreUnavailableError('PostgreSQL', `no answer within ${PING_BOUND_MS} ms`)), PING_BOUND_MS);
      });
      try {
        await Promise.race([sql`select 1`.execute(db), bound]);
      } finally {
        clearTimeout(timer);
      }
    },
    exclusive: async (fn) => {
      // Schema changes and seeding may take longer than any request's bound: a connection of their own, unbounded.
      const setup = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: new (pgDriver().Pool)({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 }) }) });
      try {
        return await setup.connection().execute(async (conn) => {
          await sql`select pg_advisory_lock(${SETUP_LOCK})`.execute(conn);
          try {
            return await fn(conn);
          } finally {
            await sql`select pg_advisory_unlock(${SETUP_LOCK})`.execute(conn);
          }
        });
      } finally {
        await setup.destroy();
      }
    },
    async close() {
      await Promise.all([db.destroy(), reader.destroy()]);
    },
  };
}

/** Storage:Provider postgres: the database at Storage:Postgres:Url, shared by every instance. */
export const postgresProvider: StorageProvider = {
  open: (config, { warn }) => openPostgres(config.Storage.Postgres.Url, {
    warn, queryTimeoutMs: config.Storage.QueryTimeoutSeconds * 1000, preparedStatements: config.Storage.Postgres.PreparedStatements,
    poolSize: config.Storage.Postgres.PoolSize,
  }),
  /**
   * The first query, made alone, so that a failure of it is the operator's to fix (server down, wrong host, database,
   * user or password), told as such with the key to look at; the URL is shown without its password.
   */
  async reach(storage, config) {
    try {
      await storage.ping();
    } catch (err) {
      const { hostname, port, pathname, username } = new URL(config.Storage.Postgres.Url);
      const where = `${username ? `${decodeURIComponent(username)}@` : ''}${hostname}:${port || 5432}${pathname}`;
      if (sqlStates(err).includes(MISSING_DATABASE)) {
        // The server answered: only the database is missing, and PostgreSQL's own client makes it.
        const database = decodeURIComponent(pathname.slice(1));
        const options = [`-h ${hostname}`, `-p ${port || 5432}`, ...(username ? [`-U ${decodeURIComponent(username)}`] : [])].join(' ');
        throw new Error(`Storage:Postgres:Url: the database ${database} does not exist on PostgreSQL at ${hostname}:${port || 5432}; `
          + `create it (createdb ${options} ${database}), then start again: the first start makes its schema`);
      }
      throw new Error(`Storage:Postgres:Url: cannot use PostgreSQL at ${where} (${(err as Error).message}); `
        + 'check that the server is running and reachable, and the URL\'s host, port, database, user and password');
    }
  },
};
