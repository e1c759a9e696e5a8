import type { Kysely } from 'kysely';
import type { SqlValues } from './sql-values.js';
import type { Tables } from './tables.js';

/**
 * What services need from a database, whichever provider holds it. Services write queries against `db`
 * (Kysely compiles them for the provider, always with bound parameters) and convert values with `values`.
 */
export interface Storage {
  readonly db: Kysely<Tables>;
  readonly values: SqlValues;
  /** Runs `fn` while no other process runs its own `exclusive` work on this database (schema setup, seeding). */
  exclusive<T>(fn: (db: Kysely<Tables>) => Promise<T>): Promise<T>;
  /** Resolves when the store answers a trivial query; readiness checks use it. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
