import { type Kysely, type QueryExecutorProvider, type RawBuilder, sql } from 'kysely';
import { type AuditRecord, auditInsert, recordAudit } from '../../audit/record-audit.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import { currentErrors } from '../../envelope/request-scope.js';
import { preconditionFails } from '../../envelope/precondition.js';
import { isPgServerError } from '../../storage/pg-driver.js';
import { keptQuery } from '../../storage/kept-query.js';
import type { Storage } from '../../storage/storage.js';
import { inTransaction } from '../../storage/transaction.js';
import type { ResourceModel } from '../model.js';
import { assertInReach, reachOf } from '../reach.js';
import { type Row, sameValue } from './values.js';

/** The table a write changes one record of: a resource's (its key, revision and reach). */
export type Written = Pick<ResourceModel, 'table' | 'keyColumn' | 'entity' | 'scopes' | 'revision' | 'modified'>;

/** Which record a write changes, and the revision the caller believes it has. */
export interface WriteTarget {
  readonly id: number;
  /** A stale one is a 409 Entity_Concurrency and nothing is written. */
  readonly revisionNumber?: number | null;
}

/** A change of one record's own columns (an update, a patch, an action). */
export interface RecordChange {
  /**
   * The columns to store (column → stored value), given the record as stored: the write's rules and derivations run
   * here and record their problems on `currentErrors()` (the write then stops, nothing stored). On SQLite this runs
   * inside the write's transaction: it must not query through `storage.db` (load what it needs before). On
   * PostgreSQL it may run again, on the newer row, when a concurrent write came first.
   */
  columns(current: Row): Readonly<Record<string, unknown>>;
  /** The write's audit entry, from the rows before and after it: stored with the write (same transaction or statement). */
  audit(before: Row, after: Row): AuditRecord;
  /**
   * First in the write's transaction: reads the soft-deletable records the write names, under a lock a delete of
   * them waits for (prepare.ts, keepReferences). A write that has it takes the locked way on every store.
   */
  keep?(trx: QueryExecutorProvider): Promise<void>;
  /** What the read of the record selects besides its row (its ETag's versions), kept in `before` and `after`. */
  readonly also?: AlsoRead;
}

/** What a record write answers. */
export interface RecordWrite {
  readonly before: Row;
  readonly after: Row;
  readonly revisionNumber: number;
  readonly modifiedDate: Date;
}

/** What a write's read of its record selects besides the record's row (the versions of its ETag): subqueries, no joins. */
export interface AlsoRead {
  readonly columns: readonly RawBuilder<unknown>[];
}

/**
 * Reads the record `id` through the caller's reach, locking it for the rest of the transaction where the store locks
 * rows (`lock`); undefined, with Entity_NotFound recorded, when it is missing or out of reach. With `also`, the
 * statement is kept compiled (it is every write's first).
 */
export async function readForWrite(
  trx: QueryExecutorProvider, storage: Storage, table: Written, id: number, columns: RawBuilder<unknown> = sql`*`, lock = true, also?: AlsoRead,
): Promise<Row | undefined> {
  const forUpdate = lock && storage.dialect.locksRows;
  const row = also
    ? (await keptRead(table, also, forUpdate)(trx as Kysely<unknown>, { id }))[0]
    : (await recordSql(table, id, forUpdate, columns).execute(trx)).rows[0];
  if (!row) currentErrors().add(MESSAGES.Entity_NotFound({ entity: table.entity, id }));
  return row;
}

/** The read of one record for a write (readForWrite). */
function recordSql(table: Written, id: unknown, forUpdate: boolean, columns: RawBuilder<unknown>): RawBuilder<Row> {
  const reach = reachOf(table, table.table);
  return sql<Row>`select ${columns} from ${sql.table(table.table)}
    where ${sql.ref(`${table.table}.${table.keyColumn}`)} = ${id}${reach ? sql` and ${reach}` : sql``}${forUpdate ? sql` for update` : sql``}`;
}

type KeptRead = (db: Kysely<unknown>, params: { id: number }) => Promise<Row[]>;
/** The kept reads of each `also` (one resource's), with and without the lock. */
const keptReads = new WeakMap<AlsoRead, { locked: KeptRead; unlocked: KeptRead }>();

function keptRead(table: Written, also: AlsoRead, forUpdate: boolean): KeptRead {
  let kept = keptReads.get(also);
  if (!kept) {
    const columns = sql.join([sql`${sql.table(table.table)}.*`, ...also.columns]);
    const read = (locked: boolean): KeptRead => keptQuery((db: Kysely<unknown>, p: { id: number }) =>
      ({ compile: () => recordSql(table, p.id, locked, columns).compile(db) }));
    keptReads.set(also, (kept = { locked: read(true), unlocked: read(false) }));
  }
  return forUpdate ? kept.locked : kept.unlocked;
}

/**
 * Whether the caller's If-Match names a representation older than the record's `current` revision (412), or the caller
 * sent a revision other than it (409): then Entity_Concurrency is recorded.
 */
export function isStale(table: Pick<Written, 'entity'>, target: WriteTarget, current: unknown): boolean {
  if (preconditionFails(`${table.entity} ${target.id}`, current)) return true;
  if (target.revisionNumber == null || target.revisionNumber === Number(current)) return false;
  currentErrors().add(MESSAGES.Entity_Concurrency({ record: `${table.entity} ${target.id}`, sent: target.revisionNumber, now: Number(current), property: 'revisionNumber' }));
  return true;
}


interface Planned {
  assignments: RawBuilder<unknown>[];
  after: Row;
  now: Date;
}

/** The UPDATE a record read as `before` gets; undefined when a check refused it (the messages are recorded). */
function plan(storage: Storage, table: Written, target: WriteTarget, change: RecordChange, before: Row): Planned | undefined {
  const errors = currentErrors();
  const columns = change.columns(before);
  errors.abortIfHasErrors();
  if (isStale(table, target, before[table.revision])) return undefined;
  const now = new Date();
  const written = Object.fromEntries(Object.entries(columns).filter(([column, value]) => !sameValue(before[column], value)));
  const assignments = Object.entries(written).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  assignments.push(sql`${sql.ref(table.revision)} = ${sql.ref(table.revision)} + 1`, sql`${sql.ref(table.modified)} = ${storage.values.date(now)}`);
  const after = { ...before, ...written, [table.revision]: Number(before[table.revision]) + 1, [table.modified]: storage.values.date(now) };
  return { assignments, after, now };
}

/** How often PostgreSQL's unlocked write is tried when concurrent writes keep coming between its read and its update, before it locks. */
const ATTEMPTS = 3;

/**
 * One write of a record's own columns in as few statements as the store allows: the record read through the caller's
 * reach (404 outside it), the write's checks (`change.columns`), the revision check (409), then one UPDATE of the
 * columns that differ from the stored ones with the next revision and the modified date, and the audit entry.
 *
 * - SQLite: one transaction (it holds the only writer): BEGIN, the read, the UPDATE, the reach check of the row as
 *   written (403, rolled back; only for a caller limited by a scope), the audit INSERT, COMMIT — five statements.
 * - PostgreSQL: no lock and no transaction, two statements: the read, then the UPDATE on the condition that the
 *   revision is still the one read, with the audit INSERT and the reach check of the row as written in the same
 *   statement (a WITH query), so all or nothing commits. A write that came between is seen (nothing updated) and the
 *   whole is tried again on the newer row; after three such tries the write takes the locked way.
 */
export async function writeRecord(
  storage: Storage, db: Kysely<unknown>, table: Written, target: WriteTarget, change: RecordChange,
): Promise<RecordWrite | undefined> {
  if (storage.dialect.locksRows && !change.keep) return writeUnlocked(storage, db, table, target, change);
  return writeLocked(storage, db, table, target, change);
}

async function writeLocked(storage: Storage, db: Kysely<unknown>, table: Written, target: WriteTarget, change: RecordChange): Promise<RecordWrite | undefined> {
  return inTransaction(db, async (trx) => {
    await change.keep?.(trx);
    const before = await readForWrite(trx, storage, table, target.id, sql`*`, true, change.also);
    if (!before) return undefined;
    const planned = plan(storage, table, target, change, before);
    if (!planned) return undefined;
    await sql`update ${sql.table(table.table)} set ${sql.join(planned.assignments)} where ${sql.ref(table.keyColumn)} = ${target.id}`.execute(trx);
    // Last, so the check sees the record as it will be committed.
    await assertInReach(trx, table, target.id);
    await recordAudit(trx, change.audit(before, planned.after));
    return { before, after: planned.after, revisionNumber: Number(before[table.revision]) + 1, modifiedDate: planned.now };
  });
}

async function writeUnlocked(storage: Storage, db: Kysely<unknown>, table: Written, target: WriteTarget, change: RecordChange): Promise<RecordWrite | undefined> {
  for (let attempt = 1; ; attempt++) {
    const before = await readForWrite(db, storage, table, target.id, sql`*`, false, change.also);
    if (!before) return undefined;
    const planned = plan(storage, table, target, change, before);
    if (!planned) return undefined;
    // A caller limited by a scope may not move the record out of it: the row as written (RETURNING) is checked in
    // the same statement, and one out of reach fails the whole statement, so neither the update nor its audit entry
    // commits. PostgreSQL has no way to raise an error in plain SQL; a cast of a marked text does, and its text
    // depends on the row, so the planner cannot fold it.
    const reach = reachOf(table, 'after');
    const update = sql`update ${sql.table(table.table)} set ${sql.join(planned.assignments)}
      where ${sql.ref(table.keyColumn)} = ${target.id} and ${sql.ref(table.revision)} = ${before[table.revision]} returning ${reach ? sql`*` : sql`1`}`;
    const inReach = reach
      ? sql` where case when ${reach} then true else cast((${OUT_OF_REACH} || ${sql.ref(`after.${table.keyColumn}`)}) as integer) = 0 end`
      : sql``;
    const audit = sql`, audit as (${auditInsert(change.audit(before, planned.after), sql`after`)})`;
    const rows = await refusedOutOfReach(sql<{ n: string | number }>`with after as (${update})${audit} select count(*) as n from after${inReach}`.execute(db));
    if (Number(rows[0]?.n) === 1) return { before, after: planned.after, revisionNumber: Number(before[table.revision]) + 1, modifiedDate: planned.now };
    // A concurrent write came between the read and the update. With the caller's revision the next read says 409
    // (or 404); without one, the change applies to the newer row. A record written that often at once is written
    // locked, waiting its turn, as on SQLite: a PUT without a revision never fails for being concurrent.
    if (attempt === ATTEMPTS) return writeLocked(storage, db, table, target, change);
  }
}

/** The text whose failed cast refuses an unlocked write out of the caller's reach (see writeUnlocked). */
const OUT_OF_REACH = 'restlayer: written out of the caller\'s record scope: ';

/** The rows of the unlocked write's statement; when its reach check refused it, Security_Forbidden (403) is thrown. */
async function refusedOutOfReach<R>(statement: Promise<{ rows: R[] }>): Promise<R[]> {
  try {
    return (await statement).rows;
  } catch (err) {
    if (!(isPgServerError(err) && err.code === '22P02' && err.message.includes(OUT_OF_REACH))) throw err;
    const errors = currentErrors();
    errors.add(MESSAGES.Security_Forbidden());
    errors.abortIfHasErrors();
    throw err;
  }
}
