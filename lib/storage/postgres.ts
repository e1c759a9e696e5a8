import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { DEFAULT_QUERY_TIMEOUT_MS, type Storage } from './storage.js';
import { postgresValues } from './sql-values.js';
import type { Tables } from './tables.js';

/** An arbitrary constant naming restlayer's advisory lock: one instance at a time migrates and seeds. */
const SETUP_LOCK = 7_274_001;

// COUNT(*) is int8, which pg returns as a string by default; counts here always fit a JavaScript number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface PostgresOptions {
  onError?: (err: Error) => void;
  /** The time limit of a query through `reader` (default DEFAULT_QUERY_TIMEOUT_MS); the server cancels it (SQLSTATE 57014). */
  queryTimeoutMs?: number;
}

/** The scale-out store: a connection pool; every instance and worker shares the same database. */
export function openPostgres(url: string, options: PostgresOptions = {}): Storage {
  const onError = options.onError ?? (() => {});
  const openPool = (settings: pg.PoolConfig) => {
    const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000, ...settings });
    // A client losing its server (restart, network) must not crash the process: idle clients report through the
    // pool, checked-out ones through their own listener; the failed query itself rejects and answers 503.
    pool.on('error', onError);
    pool.on('connect', (client) => client.on('error', onError));
    return pool;
  };
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: openPool({ max: 10 }) }) });
  // statement_timeout is a setting of the session, sent when it starts: the server itself stops a query past it.
  const reader = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: openPool({ max: 5, statement_timeout: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS }) }) });
  return {
    db,
    reader,
    values: postgresValues,
    async ping() {
      await sql`select 1`.execute(db);
    },
    exclusive: (fn) =>
      db.connection().execute(async (conn) => {
        await sql`select pg_advisory_lock(${SETUP_LOCK})`.execute(conn);
        try {
          return await fn(conn);
        } finally {
          await sql`select pg_advisory_unlock(${SETUP_LOCK})`.execute(conn);
        }
      }),
    async close() {
      await Promise.all([db.destroy(), reader.destroy()]);
    },
  };
}
