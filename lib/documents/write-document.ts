import { type Kysely, type QueryExecutorProvider, type RawBuilder, type Transaction, sql } from 'kysely';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { currentErrors } from '../envelope/request-scope.js';
import { preconditionFails } from '../envelope/precondition.js';
import type { Storage } from '../storage/storage.js';
import { assertInScope, scopeCondition } from '../storage/record-scope.js';
import { inTransaction } from '../storage/transaction.js';
import { countChildren, tooManyChildren } from './document-limits.js';
import type { DocumentSpec } from './document-spec.js';

/** Which document a write changes, and what the caller believes of it. */
export interface DocumentTarget {
  readonly parentId: number;
  /** The parent's revision the caller read; a stale one is a 409 Entity_Concurrency and nothing is written. */
  readonly revisionNumber?: number | null;
  /** The child the write changes, which must belong to the parent (else a 404 Entity_NotFound, like an unknown id). */
  readonly childId?: number;
}

/** What a document write answers: the work's result and the parent's new totals, revision and modified date. */
export interface DocumentWrite<T, W = Readonly<Record<string, unknown>>> {
  readonly result: T;
  readonly totals: W;
  readonly revisionNumber: number;
  readonly modifiedDate: Date;
}

/**
 * One write to a document, in one transaction: locks the parent (PostgreSQL: SELECT … FOR UPDATE; SQLite's
 * transactions begin IMMEDIATE and hold the only writer), checks the caller's revision and that the child belongs to
 * the parent, runs `work` (the child insert, update or delete; or a change of the parent's own fields), refuses it
 * when it added children past spec.maxChildren (400 Document_TooManyLines: the children are counted before and after
 * it, under the lock, so two writes at the cap cannot both pass it), recomputes the parent's totals from its
 * children, bumps its revision and modified date. Any problem recorded on
 * `currentErrors()` inside stops the write (`abortIfHasErrors`) and rolls everything back. Answers undefined when the
 * parent or child is missing (or out of the caller's scope: spec.scopes) or the revision is stale (the message is
 * recorded); a write that leaves the parent out of the caller's scope is a 403, rolled back.
 */
export async function writeDocument<DB, T, W>(
  storage: Storage, db: Kysely<DB>, spec: DocumentSpec<DB, W>, target: DocumentTarget,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<DocumentWrite<T, W> | undefined> {
  const errors = currentErrors();
  const { parent, child } = spec;
  const revision = spec.revision ?? 'revision_number';
  const modified = spec.modified ?? 'modified_date';
  return inTransaction(db, async (trx) => {
    const row = await lockParent<{ revision: number }>(trx, storage, spec, target.parentId, sql`${sql.ref(revision)} as revision`);
    if (!row) return undefined;
    if (target.childId !== undefined) {
      const found = (await sql<{ n: number }>`select 1 as n from ${sql.table(child.table)}
        where ${sql.ref(child.key)} = ${target.childId} and ${sql.ref(child.parentKey)} = ${target.parentId}`.execute(trx)).rows[0];
      if (!found) {
        errors.add(MESSAGES.Entity_NotFound({ entity: child.entity, id: target.childId }));
        return undefined;
      }
    }
    if (isStale(spec, target, row.revision)) return undefined;
    const childrenBefore = await countChildren(trx, spec, target.parentId);
    const result = await work(trx);
    errors.abortIfHasErrors();
    // Only a write that adds children can pass the cap: one that keeps or removes them (of a parent over a cap
    // lowered since) is still written.
    const children = await countChildren(trx, spec, target.parentId);
    if (children > childrenBefore && tooManyChildren(spec, children)) errors.abortIfHasErrors();
    const modifiedDate = new Date();
    const settled = await settleTotals(trx, spec, target.parentId, [
      sql`${sql.ref(revision)} = ${sql.ref(revision)} + 1`,
      sql`${sql.ref(modified)} = ${storage.values.date(modifiedDate)}`,
    ]);
    // Last, so the check sees the parent as it will be committed (its own fields and its totals).
    await assertInScope(trx, spec.scopes, { table: parent.table, key: parent.key, id: target.parentId });
    return { result, totals: settled.wire, revisionNumber: Number(row.revision) + 1, modifiedDate };
  });
}

/**
 * Reads the parent `parentId` through the caller's scope and locks it for the rest of the transaction (PostgreSQL:
 * FOR UPDATE, unless `lock` is false; SQLite's transactions begin IMMEDIATE and hold the only writer); undefined, with
 * Entity_NotFound recorded, when it is missing or out of scope. `columns` is the select list.
 */
export async function lockParent<Row>(
  trx: QueryExecutorProvider, storage: Storage, spec: Pick<DocumentSpec<unknown>, 'parent' | 'scopes'>, parentId: number, columns: RawBuilder<unknown>,
  lock = true,
): Promise<Row | undefined> {
  const { parent } = spec;
  const forUpdate = lock && storage.dialect.locksRows ? sql` for update` : sql``;
  // The caller's scope is part of the lock's condition: a parent out of it is not found, and nothing is locked.
  const scope = scopeCondition(spec.scopes, parent.table);
  const inScope = scope ? sql` and ${scope}` : sql``;
  const row = (await sql<Row>`select ${columns} from ${sql.table(parent.table)}
    where ${sql.ref(`${parent.table}.${parent.key}`)} = ${parentId}${inScope}${forUpdate}`.execute(trx)).rows[0];
  if (!row) currentErrors().add(MESSAGES.Entity_NotFound({ entity: parent.entity, id: parentId }));
  return row;
}

/**
 * Whether the caller's If-Match names a representation older than the parent's `current` revision (412), or the caller
 * sent a revision other than it (409): then Entity_Concurrency is recorded.
 */
export function isStale(spec: Pick<DocumentSpec<unknown>, 'parent'>, target: DocumentTarget, current: unknown): boolean {
  if (preconditionFails(`${spec.parent.entity} ${target.parentId}`, current)) return true;
  if (target.revisionNumber == null || target.revisionNumber === Number(current)) return false;
  currentErrors().add(MESSAGES.Entity_Concurrency({
    record: `${spec.parent.entity} ${target.parentId}`, sent: target.revisionNumber, now: Number(current), property: 'revisionNumber',
  }));
  return true;
}

/**
 * Stores the parent's totals recomputed from its children (and any `more` assignments), inside the caller's
 * transaction: after a whole document was inserted (createDocument) or a child changed (writeDocument).
 */
export async function settleTotals<DB, W>(
  trx: Transaction<DB>, spec: DocumentSpec<DB, W>, parentId: number, more: RawBuilder<unknown>[] = [],
): Promise<{ wire: W }> {
  const totals = await spec.totals(trx, parentId);
  currentErrors().abortIfHasErrors();
  const assignments = [...Object.entries(totals.columns).map(([column, value]) => sql`${sql.ref(column)} = ${value}`), ...more];
  if (assignments.length) {
    await sql`update ${sql.table(spec.parent.table)} set ${sql.join(assignments)}
      where ${sql.ref(spec.parent.key)} = ${parentId}`.execute(trx);
  }
  return { wire: totals.wire };
}
