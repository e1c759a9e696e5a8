import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPgServerError } from '../storage/pg-driver.js';
import { type AuditRecord, auditInsert, recordAudit } from '../audit/record-audit.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { currentErrors } from '../envelope/request-scope.js';
import type { Storage } from '../storage/storage.js';
import { assertInScope, scopeCondition } from '../storage/record-scope.js';
import { inTransaction } from '../storage/transaction.js';
import type { DocumentSpec } from './document-spec.js';
import { type DocumentTarget, isStale, lockParent, settleTotals } from './write-document.js';

/** A parent row as the store answers it: column → stored value. */
export type StoredRow = Readonly<Record<string, unknown>>;

/** A change of a document's parent's own fields, its children untouched (a header PUT or PATCH). */
export interface ParentChange<Row extends StoredRow> {
  /**
   * The columns to store (column → stored value, as `storage.values` converts them), given the parent as stored.
   * Checks that need the stored record (an order's dates against its order date) run here and record their problems
   * on `currentErrors()`: the write then stops and nothing is stored. They run before the revision check, so bad input
   * is said before a stale revision. They may run inside the write's transaction: read what they need (lookup tables)
   * before writeParent, since on SQLite a query through `storage.db` there waits for the connection the transaction
   * holds, forever. On PostgreSQL they may run again, on the newer row, when a concurrent write came first.
   */
  columns(current: Row): Readonly<Record<string, unknown>>;
  /**
   * The write's audit entry (lib/audit), from the parent's row before and after it: stored with the write, in the same
   * transaction or statement. `after` is the row before with the columns written, the totals, the next revision and the
   * modified date: the values as stored, when `columns` gives them as the store keeps them.
   */
  audit?(before: Row, after: Row): AuditRecord;
}

/** What writeParent answers: the parent's rows before and after, its new totals, revision and modified date. */
export interface ParentWrite<Row extends StoredRow, W> {
  readonly before: Row;
  readonly after: Row;
  readonly totals: W;
  readonly revisionNumber: number;
  readonly modifiedDate: Date;
}

/** How often PostgreSQL's unlocked write is tried when concurrent writes to the same parent keep coming between its read and its update, before it locks. */
const ATTEMPTS = 3;

/**
 * Whether two stored values are certainly the same: then the column is left out of the update, and neither it nor an
 * index on it is rewritten. Anything uncertain (a numeric's other spelling) counts as changed and is written.
 */
function same(stored: unknown, next: unknown): boolean {
  if (stored === next) return true;
  return stored instanceof Date && next instanceof Date && stored.getTime() === next.getTime();
}

/** The update a parent row read as `before` gets: undefined when a check refused it (the messages are recorded). */
interface Planned<Row, W> {
  assignments: RawBuilder<unknown>[];
  after: Row;
  totals: W | undefined;
  now: Date;
}

function plan<DB, Row extends StoredRow, W>(
  storage: Storage, spec: DocumentSpec<DB, W>, target: Omit<DocumentTarget, 'childId'>, change: ParentChange<Row>, before: Row,
): Planned<Row, W> | undefined {
  const errors = currentErrors();
  const revision = spec.revision ?? 'revision_number';
  const modified = spec.modified ?? 'modified_date';
  const columns = change.columns(before);
  errors.abortIfHasErrors();
  if (isStale(spec, target, before[revision])) return undefined;
  const totals = spec.parentTotals?.({ ...before, ...columns });
  errors.abortIfHasErrors();
  const now = new Date();
  const written = Object.fromEntries(Object.entries({ ...columns, ...totals?.columns }).filter(([column, value]) => !same(before[column], value)));
  const assignments = Object.entries(written).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  assignments.push(sql`${sql.ref(revision)} = ${sql.ref(revision)} + 1`, sql`${sql.ref(modified)} = ${storage.values.date(now)}`);
  const after = { ...before, ...written, [revision]: Number(before[revision]) + 1, [modified]: storage.values.date(now) } as Row;
  return { assignments, after, totals: totals?.wire, now };
}

/**
 * One write of a document's parent's own fields, in as few statements as the store allows: the parent read through the
 * caller's scope (404 outside it), the caller's checks (`change.columns`), the revision check (409), then one UPDATE of
 * the columns that differ from the stored ones with the derived totals (spec.parentTotals), the next revision and the
 * modified date, and the audit entry (`change.audit`).
 *
 * - SQLite, or a spec without parentTotals: one transaction with the parent locked (PostgreSQL: FOR UPDATE; SQLite
 *   holds the only writer): BEGIN, the read, the UPDATE, the scope check of the row as written (403, rolled back; only
 *   for a caller limited by a record scope), the audit INSERT, COMMIT — five statements, six with a scope.
 * - PostgreSQL otherwise: no lock and no transaction, two statements. The read, then the UPDATE on the condition that
 *   the revision is still the one read, with the audit INSERT and the scope check of the row as written in the same
 *   statement (a WITH query), so all or nothing commits. Every write bumps the revision, so the row updated is exactly
 *   the row read and checked. A write that comes between is seen (nothing updated) and the whole is tried again on the
 *   newer row: a caller's stale revision then answers 409, a deleted parent (or one moved out of the caller's scope)
 *   404; after three such tries the write takes the locked way.
 */
export async function writeParent<DB, Row extends StoredRow, W>(
  storage: Storage, db: Kysely<DB>, spec: DocumentSpec<DB, W>, target: Omit<DocumentTarget, 'childId'>, change: ParentChange<Row>,
): Promise<ParentWrite<Row, W> | undefined> {
  if (storage.dialect.locksRows && spec.parentTotals) return writeUnlocked(storage, db, spec, target, change);
  return writeLocked(storage, db, spec, target, change);
}

async function writeLocked<DB, Row extends StoredRow, W>(
  storage: Storage, db: Kysely<DB>, spec: DocumentSpec<DB, W>, target: Omit<DocumentTarget, 'childId'>, change: ParentChange<Row>,
): Promise<ParentWrite<Row, W> | undefined> {
  const { parent } = spec;
  const revision = spec.revision ?? 'revision_number';
  return inTransaction(db, async (trx) => {
    const before = await lockParent<Row>(trx, storage, spec, target.parentId, sql`*`);
    if (!before) return undefined;
    const planned = plan(storage, spec, target, change, before);
    if (!planned) return undefined;
    await sql`update ${sql.table(parent.table)} set ${sql.join(planned.assignments)} where ${sql.ref(parent.key)} = ${target.parentId}`.execute(trx);
    // No parentTotals: the totals are read as a child write reads them, from the parent just stored.
    const totals = planned.totals ?? (await settleTotals(trx, spec, target.parentId)).wire;
    // Last, so the check sees the parent as it will be committed.
    await assertInScope(trx, spec.scopes, { table: parent.table, key: parent.key, id: target.parentId });
    const entry = change.audit?.(before, planned.after);
    if (entry) await recordAudit(trx, entry);
    return { before, after: planned.after, totals, revisionNumber: Number(before[revision]) + 1, modifiedDate: planned.now };
  });
}

async function writeUnlocked<DB, Row extends StoredRow, W>(
  storage: Storage, db: Kysely<DB>, spec: DocumentSpec<DB, W>, target: Omit<DocumentTarget, 'childId'>, change: ParentChange<Row>,
): Promise<ParentWrite<Row, W> | undefined> {
  const { parent } = spec;
  const revision = spec.revision ?? 'revision_number';
  for (let attempt = 1; ; attempt++) {
    const before = await lockParent<Row>(db, storage, spec, target.parentId, sql`*`, false);
    if (!before) return undefined;
    const planned = plan(storage, spec, target, change, before);
    if (!planned) return undefined;
    // A caller limited by a record scope may not move the parent out of it: the row as written (RETURNING) is checked
    // in the same statement, and one out of scope fails the whole statement, so neither the update nor its audit
    // entry commits. PostgreSQL has no way to raise an error in plain SQL; a cast of a marked text does, and its
    // text depends on the row, so the planner cannot fold it.
    const scope = scopeCondition(spec.scopes, 'after');
    const update = sql`update ${sql.table(parent.table)} set ${sql.join(planned.assignments)}
      where ${sql.ref(parent.key)} = ${target.parentId} and ${sql.ref(revision)} = ${before[revision]} returning ${scope ? sql`*` : sql`1`}`;
    const inScope = scope
      ? sql` where case when ${scope} then true else cast((${OUT_OF_SCOPE} || ${sql.ref(`after.${parent.key}`)}) as integer) = 0 end`
      : sql``;
    const entry = change.audit?.(before, planned.after);
    const audit = entry ? sql`, audit as (${auditInsert(entry, sql`after`)})` : sql``;
    const rows = await refusedOutOfScope(sql<{ n: string | number }>`with after as (${update})${audit} select count(*) as n from after${inScope}`.execute(db));
    if (Number(rows[0]?.n) === 1) {
      return { before, after: planned.after, totals: planned.totals!, revisionNumber: Number(before[revision]) + 1, modifiedDate: planned.now };
    }
    // A concurrent write came between the read and the update. With the caller's revision the next read says 409
    // (or 404); without one, the change applies to the newer row. A parent written that often at once is written
    // locked, waiting its turn, as on SQLite: a PUT without a revision never fails for being concurrent.
    if (attempt === ATTEMPTS) return writeLocked(storage, db, spec, target, change);
  }
}

/** The text whose failed cast refuses an unlocked write out of the caller's scope (see writeUnlocked). */
const OUT_OF_SCOPE = 'restlayer: written out of the caller\'s record scope: ';

/**
 * The rows of the unlocked write's statement. When its scope check refused it, nothing was written and
 * Security_Forbidden (403) is thrown, as the locked way's assertInScope throws it.
 */
async function refusedOutOfScope<R>(statement: Promise<{ rows: R[] }>): Promise<R[]> {
  try {
    return (await statement).rows;
  } catch (err) {
    if (!(isPgServerError(err) && err.code === '22P02' && err.message.includes(OUT_OF_SCOPE))) throw err;
    const errors = currentErrors();
    errors.add(MESSAGES.Security_Forbidden());
    errors.abortIfHasErrors();
    throw err;
  }
}
