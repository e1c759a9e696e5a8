import type { Kysely, Transaction } from 'kysely';
import { currentErrors } from '../envelope/request-scope.js';
import { assertInScope } from '../storage/record-scope.js';
import { inTransaction } from '../storage/transaction.js';
import { countChildren, tooManyChildren } from './document-limits.js';
import type { DocumentSpec } from './document-spec.js';
import { settleTotals } from './write-document.js';

/**
 * Creates a whole document in one transaction: the parent (`insertParent` answers its id), then its children, then
 * the parent's totals from them. Whole or not at all: a problem recorded on `currentErrors()` by either step (a
 * child's, on `lines[2].orderQty` — see itemProperty), more children than spec.maxChildren (400
 * Document_TooManyLines, counted as stored) or a total out of range stops it and nothing is stored.
 * A document the caller's scope (spec.scopes) would not reach once created is a 403 with nothing stored.
 * Check what can be checked before (inputs with tooManyChildren, lookups) so that a refused document opens no
 * transaction.
 */
export async function createDocument<DB, T extends { parentId: number }, W>(
  db: Kysely<DB>, spec: DocumentSpec<DB, W>,
  insertParent: (trx: Transaction<DB>) => Promise<T>,
  insertChildren: (trx: Transaction<DB>, parentId: number) => Promise<void>,
): Promise<T & { totals: W }> {
  return inTransaction(db, async (trx) => {
    const parent = await insertParent(trx);
    await insertChildren(trx, parent.parentId);
    tooManyChildren(spec, await countChildren(trx, spec, parent.parentId));
    currentErrors().abortIfHasErrors();
    // A scoped caller creates only what their scope reaches: otherwise 403, and the transaction rolls back.
    await assertInScope(trx, spec.scopes, { table: spec.parent.table, key: spec.parent.key, id: parent.parentId });
    const { wire } = await settleTotals(trx, spec, parent.parentId);
    return { ...parent, totals: wire };
  });
}
