import { sql } from 'kysely';
import { diffChanges } from '../../audit/diff.js';
import { recordAudit } from '../../audit/record-audit.js';
import { Output } from '../../envelope/output.js';
import { currentErrors } from '../../envelope/request-scope.js';
import { inTransaction } from '../../storage/transaction.js';
import { isForeignKeyViolation } from '../../storage/unique-violation.js';
import { type Referrers, inUse } from '../messages.js';
import { scopeCondition } from '../../storage/record-scope.js';
import { childrenState, rowState } from './audit-state.js';
import type { Runtime } from './context.js';
import type { Row } from './values.js';
import { type WriteTarget, isStale, readForWrite } from './write-record.js';

/**
 * How many rows of each referring table refer to the record. A caller limited by a scope is told only which kinds
 * refer to it: the counts would include records out of their reach.
 */
async function referrersOf(runtime: Runtime, id: number): Promise<Referrers[]> {
  const scoped = scopeCondition(runtime.model.scopes, runtime.model.table) !== undefined;
  const referrers: Referrers[] = [];
  for (const r of runtime.referrers) {
    if (scoped) {
      referrers.push({ name: r.name });
      continue;
    }
    const live = r.softDelete ? sql` and ${sql.ref(r.softDelete)} is null` : sql``;
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(r.table)} where ${sql.ref(r.column)} = ${id}${live}`.execute(runtime.db);
    referrers.push({ name: r.name, count: Number(rows[0].n) });
  }
  return referrers;
}

/**
 * `DELETE /<resource>/{id}`: the record (read through the caller's reach, locked) with its children, and the audit
 * entry of everything it held, in one transaction. Rows of other tables that still refer to it make the store's
 * foreign key refuse it (not a count made before, which a concurrent write could outdate): 409 Entity_InUse, nothing
 * deleted.
 */
export async function remove(runtime: Runtime, id: number, revisionNumber?: number): Promise<Output> {
  const { model, storage } = runtime;
  if (model.softDelete) return markDeleted(runtime, { id, revisionNumber });
  try {
    await inTransaction(runtime.db, async (trx) => {
      const row = await readForWrite(trx, storage, model, id);
      // Locked (or the only writer): an If-Match or revision checked here holds until the delete commits.
      if (!row || isStale(model, { id, revisionNumber }, row[model.revision])) return;
      let state = rowState(runtime, row);
      for (const child of runtime.children) {
        const { table, parentColumn, keyColumn } = child.model;
        const rows = (await sql<Row>`select * from ${sql.table(table)} where ${sql.ref(parentColumn)} = ${id} order by ${sql.ref(keyColumn)}`.execute(trx)).rows;
        state = { ...state, ...childrenState(child, rows) };
        await sql`delete from ${sql.table(table)} where ${sql.ref(parentColumn)} = ${id}`.execute(trx);
      }
      await sql`delete from ${sql.table(model.table)} where ${sql.ref(model.keyColumn)} = ${id}`.execute(trx);
      await recordAudit(trx, { entity: model.name, recordId: id, operation: 'delete', changes: diffChanges(state, undefined) });
    });
  } catch (err) {
    if (!isForeignKeyViolation(err)) throw err;
    currentErrors().add(inUse(model.entity, id, await referrersOf(runtime, id)));
  }
  return Output.of();
}

/**
 * `DELETE` of a soft-deletable record: marked deleted (the instant in its `deleted_at`, the next revision), its
 * children kept, with a `delete` audit entry of everything it held, in one transaction. A foreign key cannot refuse a
 * mark: the rows of referring tables that are not deleted themselves are counted inside the transaction, after the
 * record is locked, and any makes it a 409 Entity_InUse with nothing marked.
 */
async function markDeleted(runtime: Runtime, target: WriteTarget): Promise<Output> {
  const { model, storage } = runtime;
  const { id } = target;
  const referred = await inTransaction(runtime.db, async (trx) => {
    const row = await readForWrite(trx, storage, model, id);
    // Locked (or the only writer), as the hard delete's: an If-Match or revision must still name this one.
    if (!row || isStale(model, target, row[model.revision])) return false;
    for (const r of runtime.referrers) {
      const live = r.softDelete ? sql` and ${sql.ref(r.softDelete)} is null` : sql``;
      const { rows } = await sql<{ n: number }>`select 1 as n from ${sql.table(r.table)} where ${sql.ref(r.column)} = ${id}${live} limit 1`.execute(trx);
      if (rows.length) return true;
    }
    let state = rowState(runtime, row);
    for (const child of runtime.children) {
      const { table, parentColumn, keyColumn } = child.model;
      const rows = (await sql<Row>`select * from ${sql.table(table)} where ${sql.ref(parentColumn)} = ${id} order by ${sql.ref(keyColumn)}`.execute(trx)).rows;
      state = { ...state, ...childrenState(child, rows) };
    }
    const now = storage.values.date(new Date());
    await sql`update ${sql.table(model.table)} set ${sql.ref(model.softDelete!)} = ${now}, ${sql.ref(model.revision)} = ${sql.ref(model.revision)} + 1,
      ${sql.ref(model.modified)} = ${now} where ${sql.ref(model.keyColumn)} = ${id}`.execute(trx);
    await recordAudit(trx, { entity: model.name, recordId: id, operation: 'delete', changes: diffChanges(state, undefined) });
    return false;
  });
  // Counted after the transaction, which on SQLite holds the only connection.
  if (referred) currentErrors().add(inUse(model.entity, id, await referrersOf(runtime, id)));
  return Output.of();
}
