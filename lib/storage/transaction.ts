import type { Kysely, Transaction } from 'kysely';

/**
 * Runs `work` in one transaction of the store, on SQLite and PostgreSQL alike: the writes made through `trx` commit
 * together when `work` resolves, and none of them when it throws; the error goes on to the caller unchanged, so a
 * broken unique key still answers 409 Entity_Duplicate and `currentErrors().abortIfHasErrors()` inside still answers
 * its messages. `db` is the store's (`storage.db`) or a service's typed view of it (`storage.db.withTables<…>()`).
 *
 * Inside, query through `trx` only. SQLite has one connection per process and the transaction holds it (begun
 * IMMEDIATE, so it takes the write lock first and never fails later on a stale snapshot): a query through
 * `storage.db` meanwhile would wait for the transaction to end, which waits for that query. `storage.reader` sees
 * committed rows only. PostgreSQL runs it at READ COMMITTED on a connection of its own from the pool.
 */
export function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}
