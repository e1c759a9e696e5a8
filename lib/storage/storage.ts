import type { StatementCount } from './statement-count.js';
import type { CompiledQuery, Kysely } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';
import type { SqlValues } from './sql-values.js';
import type { Tables } from './tables.js';

export { DEFAULT_QUERY_TIMEOUT_MS } from '../config/schema.js';

/**
 * What services need from a database, whichever provider holds it. Services write queries against `db`
 * (Kysely compiles them for the provider, always with bound parameters) and convert values with `values`; SQL that
 * differs between providers (schema, locks, text folding) asks `dialect`.
 */
export interface Storage {
  readonly db: Kysely<Tables>;
  /** What differs between providers, for code that builds SQL or a schema. */
  readonly dialect: StorageDialect;
  /** The dialect's conversions of dates and booleans (the same object as `dialect`), all that most services need. */
  readonly values: SqlValues;
  /**
   * For reads that may be slow (list pages, counts): they run off the event loop, so other requests are not held up,
   * and a query still running after `Storage:QueryTimeoutSeconds` is stopped and fails with a 503 Request_Timeout.
   * SQLite: read-only connections in processes of their own; they see committed data only, so a read that must see
   * this request's own writes (or runs inside a transaction) uses `db`. The in-memory database reads through `db`
   * (no other connection can see it). PostgreSQL: a pool of its own whose sessions carry statement_timeout.
   */
  readonly reader: Kysely<Tables>;
  /** The statements run through `db`, `reader` and `readNow` since the store opened (lib/storage/statement-count.ts). */
  readonly statements: StatementCount;
  /** Runs `fn` while no other process runs its own `exclusive` work on this database (schema setup, seeding). */
  exclusive<T>(fn: (db: Kysely<Tables>) => Promise<T>): Promise<T>;
  /**
   * Runs a read at once, outside the query queue, where the store can do that safely (the embedded store, while its
   * connection is idle); undefined otherwise, and the caller sends the query through `db`. For the small lookups
   * made on every request, where the queue's own cost exceeds the query's.
   */
  readNow?<R>(query: CompiledQuery<R>): R[] | undefined;
  /** Resolves when the store answers a trivial query; readiness checks use it. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
