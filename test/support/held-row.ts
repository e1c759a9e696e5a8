import { type Kysely, sql } from 'kysely';
import { inTransaction } from 'restlayer';
import type { TestServer } from 'restlayer/testing';

/**
 * Holds a record's row (PostgreSQL: locked; SQLite: the one writer's transaction) while `burst` starts, then lets go:
 * every request of the burst has made the checks it makes before its write against the record as it was, so only a
 * check the write makes on the row it holds can keep a request from acting on what it saw before. `waitMs`: time for
 * those reads before the writes (a shorter wait only makes a test weaker, never wrong).
 */
export async function whileHeld<T>(
  server: Pick<TestServer, 'infrastructure'>, table: string, key: string, id: number, burst: () => Promise<T>[], waitMs = 750,
): Promise<T[]> {
  const { storage } = server.infrastructure;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held!: () => void;
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const db = storage.db as unknown as Kysely<unknown>;
  const transaction = inTransaction(db, async (trx) => {
    await (storage.dialect.locksRows
      ? sql`select 1 from ${sql.table(table)} where ${sql.ref(key)} = ${id} for update`
      : sql`select 1`).execute(trx);
    held();
    await released;
  });
  await holding;
  const answers = burst();
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  release();
  await transaction;
  return Promise.all(answers);
}
