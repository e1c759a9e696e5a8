import { sql } from 'kysely';
import { diffChanges } from '../../audit/diff.js';
import { recordAudit } from '../../audit/record-audit.js';
import { Output } from '../../envelope/output.js';
import { currentErrors, withDeletedView } from '../../envelope/request-scope.js';
import { inTransaction } from '../../storage/transaction.js';
import { rowState } from './audit-state.js';
import type { Runtime } from './context.js';
import { keepReferences, refersToSoftDeletable, writeContext } from './prepare.js';
import { checkUnique } from './unique.js';
import type { Revision } from './update.js';
import { isStale, readForWrite } from './write-record.js';

/**
 * `POST /<resource>/{id}/restore` (contract part 13): a deleted record, reached through the caller's
 * `<resource>.delete` grant, is no longer deleted. Refused as its create would be when a record it refers to is
 * gone or out of reach (an order whose customer was deleted) and with 409 Entity_Duplicate on the property when a
 * record not deleted took one of its unique values meanwhile (the partial unique index settles a race the same way);
 * a record that is not deleted (or unknown, or out of reach) is a 404; a stale `revisionNumber` a 409. The next
 * revision, and a `restore` audit entry.
 */
export function restore(runtime: Runtime, id: number, input: { revisionNumber?: number | null } = {}): Promise<Output<Revision>> {
  const { model, storage, table } = runtime;
  return withDeletedView(model.permissions.delete, async () => {
    const errors = currentErrors();
    const stored = await readForWrite(runtime.db, storage, model, id, sql`*`, false);
    if (!stored) return Output.of();
    const record = table.fromColumns(stored);
    await writeContext(runtime, 'restore', 'none', record);
    errors.abortIfHasErrors();
    await checkUnique(runtime, record, id);
    const done = await inTransaction(runtime.db, async (trx) => {
      // Its references read again under a lock, as a create's: checked before the transaction only, a customer deleted
      // meanwhile (its delete finding no live order to refuse it) would leave a live order naming a deleted customer.
      // First, as every write takes its locks (the references, then the record), so that no two wait on each other.
      if (refersToSoftDeletable(model.fields, record)) await keepReferences(trx, runtime, model.fields, record);
      const before = await readForWrite(trx, storage, model, id);
      if (!before || isStale(model, { id, revisionNumber: input.revisionNumber }, before[model.revision])) return undefined;
      const now = new Date();
      const revisionNumber = Number(before[model.revision]) + 1;
      await sql`update ${sql.table(model.table)} set ${sql.ref(model.softDelete!)} = null, ${sql.ref(model.revision)} = ${revisionNumber},
        ${sql.ref(model.modified)} = ${storage.values.date(now)} where ${sql.ref(model.keyColumn)} = ${id}`.execute(trx);
      const after = { ...before, [model.revision]: revisionNumber };
      await recordAudit(trx, { entity: model.name, recordId: id, operation: 'restore', changes: diffChanges(rowState(runtime, before), rowState(runtime, after)) });
      return { revisionNumber, modifiedDate: now };
    });
    return done ? Output.of(done) : Output.of();
  });
}
