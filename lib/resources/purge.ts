import { type Kysely, sql } from 'kysely';
import type { Storage } from '../storage/storage.js';
import { inTransaction } from '../storage/transaction.js';
import type { ReferringTable } from './declaration.js';
import type { ResourceModel } from './model.js';

/** Records removed per transaction: each batch is short, so writes never wait long behind a purge. */
export const PURGE_BATCH = 500;

/** What one resource's purge removed. */
export interface Purged {
  readonly resource: string;
  readonly records: number;
  readonly batches: number;
}

/**
 * Removes the records of a soft-deletable resource deleted before `before`, with their children, in batches of
 * `batch` records, each its own short transaction (contract part 13: never a long lock). A record that another
 * table's rows still refer to (a deleted customer whose deleted orders are kept) stays until they are purged: purge
 * the referring resources first. On PostgreSQL a batch skips rows another transaction holds (a restore under way),
 * and every DELETE keeps to rows still deleted. Kept counts follow by themselves (the tables' change generations).
 * A purged record's history answers 404 (lib/audit/read-history.ts, `kept`).
 */
export async function purgeDeleted(
  storage: Storage, model: ResourceModel, referrers: readonly ReferringTable[], before: Date, batch = PURGE_BATCH,
): Promise<Purged> {
  const column = model.softDelete;
  if (!column) throw new Error(`${model.name} is not soft-deletable: nothing to purge`);
  const db = storage.db as unknown as Kysely<unknown>;
  const key = sql.ref(`t.${model.keyColumn}`);
  const unreferred = referrers.map((r) => sql` and not exists (select 1 from ${sql.table(r.table)} as r where ${sql.ref(`r.${r.column}`)} = ${key})`);
  const skipLocked = storage.dialect.locksRows ? sql` for update skip locked` : sql``;
  let records = 0;
  let batches = 0;
  for (;;) {
    const removed = await inTransaction(db, async (trx) => {
      const { rows } = await sql<{ id: number }>`select ${key} as id from ${sql.table(model.table)} as t
        where ${sql.ref(`t.${column}`)} < ${storage.values.date(before)}${sql.join(unreferred, sql``)}
        order by ${key} limit ${batch}${skipLocked}`.execute(trx);
      const ids = rows.map((r) => Number(r.id));
      if (!ids.length) return 0;
      for (const child of model.children) {
        await sql`delete from ${sql.table(child.table)} where ${sql.ref(child.parentColumn)} in (${sql.join(ids)})`.execute(trx);
      }
      await sql`delete from ${sql.table(model.table)} where ${sql.ref(model.keyColumn)} in (${sql.join(ids)})
        and ${sql.ref(column)} is not null`.execute(trx);
      return ids.length;
    });
    if (!removed) break;
    records += removed;
    batches++;
    if (removed < batch) break;
  }
  return { resource: model.name, records, batches };
}
