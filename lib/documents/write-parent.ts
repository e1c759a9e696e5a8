import { type Kysely, type Transaction, sql } from 'kysely';
import { currentErrors } from '../envelope/request-scope.js';
import type { Storage } from '../storage/storage.js';
import { assertInScope } from '../storage/record-scope.js';
import { inTransaction } from '../storage/transaction.js';
import type { DocumentSpec } from './document-spec.js';
import { type DocumentTarget, isStale, lockParent, settleTotals } from './write-document.js';

/** A parent row as the store answers it: column → stored value. */
export type StoredRow = Readonly<Record<string, unknown>>;

/** A change of a document's parent's own fields, its children untouched (a header PUT or PATCH). */
export interface ParentChange<DB, Row extends StoredRow> {
  /**
   * The columns to store (column → stored value), given the parent as locked. Checks that need the stored record (an
   * order's dates against its order date) run here and record their problems on `currentErrors()`: the write then
   * stops and nothing is stored. They run before the revision check, so bad input is said before a stale revision.
   * They run inside the transaction: read what they need (lookup tables) before writeParent, since on SQLite a query
   * through `storage.db` here waits for the connection the transaction holds, forever.
   */
  columns(locked: Row): Readonly<Record<string, unknown>> | Promise<Readonly<Record<string, unknown>>>;
  /** Runs in the write's transaction once the parent is stored: its row before and after (the audit entry goes here). */
  written?(trx: Transaction<DB>, before: Row, after: Row): Promise<void>;
}

/** What writeParent answers: the parent's rows before and after, its new totals, revision and modified date. */
export interface ParentWrite<Row extends StoredRow, W> {
  readonly before: Row;
  readonly after: Row;
  readonly totals: W;
  readonly revisionNumber: number;
  readonly modifiedDate: Date;
}

/**
 * Whether two stored values are certainly the same: then the column is left out of the update, and neither it nor an
 * index on it is rewritten. Anything uncertain (a numeric's other spelling) counts as changed and is written.
 */
function same(stored: unknown, next: unknown): boolean {
  if (stored === next) return true;
  return stored instanceof Date && next instanceof Date && stored.getTime() === next.getTime();
}

/**
 * One write of a document's parent's own fields, in one transaction and as few statements as the store allows: the
 * parent locked and read whole through the caller's scope (404 outside it), the caller's checks (`change.columns`),
 * the revision check (409), then one UPDATE … RETURNING of the columns that differ from the stored ones with the
 * derived totals (spec.parentTotals), the next revision and the modified date; the scope check of the row as written
 * (403, rolled back); `change.written` with both rows. Three statements (four with a scope) where writeDocument's
 * general path takes seven: its totals are read from the children, which this write does not change.
 */
export async function writeParent<DB, Row extends StoredRow, W>(
  storage: Storage, db: Kysely<DB>, spec: DocumentSpec<DB, W>, target: Omit<DocumentTarget, 'childId'>, change: ParentChange<DB, Row>,
): Promise<ParentWrite<Row, W> | undefined> {
  const errors = currentErrors();
  const { parent } = spec;
  const revision = spec.revision ?? 'revision_number';
  const modified = spec.modified ?? 'modified_date';
  return inTransaction(db, async (trx) => {
    const before = await lockParent<Row>(trx, storage, spec, target.parentId, sql`*`);
    if (!before) return undefined;
    const columns = await change.columns(before);
    errors.abortIfHasErrors();
    if (isStale(spec, target, before[revision])) return undefined;
    const totals = spec.parentTotals?.({ ...before, ...columns });
    errors.abortIfHasErrors();
    const now = new Date();
    const assignments = Object.entries({ ...columns, ...totals?.columns })
      .filter(([column, value]) => !same(before[column], value))
      .map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
    assignments.push(sql`${sql.ref(revision)} = ${sql.ref(revision)} + 1`, sql`${sql.ref(modified)} = ${storage.values.date(now)}`);
    let after = (await sql<Row>`update ${sql.table(parent.table)} set ${sql.join(assignments)}
      where ${sql.ref(parent.key)} = ${target.parentId} returning *`.execute(trx)).rows[0];
    let wire = totals?.wire;
    if (!wire) {
      // No parentTotals: the totals are read as a child write reads them, from the parent just stored.
      wire = (await settleTotals(trx, spec, target.parentId)).wire;
      after = (await sql<Row>`select * from ${sql.table(parent.table)} where ${sql.ref(parent.key)} = ${target.parentId}`.execute(trx)).rows[0];
    }
    // Last, so the check sees the parent as it will be committed.
    await assertInScope(trx, spec.scopes, { table: parent.table, key: parent.key, id: target.parentId });
    await change.written?.(trx, before, after);
    return { before, after, totals: wire, revisionNumber: Number(before[revision]) + 1, modifiedDate: now };
  });
}
