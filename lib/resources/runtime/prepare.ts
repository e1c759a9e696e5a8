import { type QueryExecutorProvider, sql } from 'kysely';
import { isForeignKeyViolation } from '../../storage/unique-violation.js';
import { currentAccess, currentErrors } from '../../envelope/request-scope.js';
import type { LookupTable } from '../../lookup/lookup-table.js';
import type { SqlValues } from '../../storage/sql-values.js';
import type { WireRecord } from '../field.js';
import { unknownReference } from '../messages.js';
import { type ResourceField, type ResourceModel, targetModel } from '../model.js';
import { resolveIn } from '../reach.js';
import type { ChildRuntime, Runtime } from './context.js';
import type { WriteContext } from './settle.js';
import { TableIo } from './table-io.js';
import type { Draft, Row } from './values.js';

/** A referenced resource's rows as records, one reader per model and store. */
const readers = new WeakMap<ResourceModel, WeakMap<SqlValues, TableIo>>();
function recordOf(model: ResourceModel, values: SqlValues, row: Row): WireRecord {
  const byValues = readers.get(model) ?? readers.set(model, new WeakMap()).get(model)!;
  const io = byValues.get(values) ?? byValues.set(values, new TableIo(values, model, model.table)).get(values)!;
  return { [model.key]: row[model.keyColumn] as number, ...io.fromColumns(row) };
}

/** The lookup tables the lookup fields name, from the process-wide cache (a table loads on first use). */
async function lookupTables(runtime: Runtime, fields: readonly ResourceField[]): Promise<Map<string, LookupTable | undefined>> {
  const tables = new Map<string, LookupTable | undefined>();
  for (const f of fields) {
    const table = f.spec.lookup?.table;
    if (table && !tables.has(table)) tables.set(table, (await runtime.lookups.get(table))?.table);
  }
  return tables;
}

/** Resolved references by target model and id: a create's children naming one record many times resolve it once. */
type Resolved = Map<ResourceModel, Map<unknown, WireRecord | undefined>>;

/**
 * The records the reference fields of `input` name, each resolved as the caller may read it (once per record for one
 * write); an unknown one, or one out of reach (the same answer), is recorded as `<Resource>_Unknown<Other>` on
 * `prefix` + its field.
 */
async function referencesOf(
  runtime: Runtime, fields: readonly ResourceField[], input: Draft, prefix = '', resolved: Resolved = new Map(),
): Promise<Map<string, WireRecord | undefined>> {
  const references = new Map<string, WireRecord | undefined>();
  for (const f of fields) {
    const id = input[f.name];
    if (f.spec.type !== 'reference' || id == null) continue;
    const target = targetModel(f.spec.reference!);
    const known = resolved.get(target) ?? resolved.set(target, new Map()).get(target)!;
    if (!known.has(id)) {
      const row = await resolveIn<Row>(runtime.db, target, id as number);
      known.set(id, row && recordOf(target, runtime.storage.values, row));
    }
    const record = known.get(id);
    if (record) references.set(f.name, record);
    else currentErrors().add(unknownReference(runtime.model.pascal, target, id, prefix + f.name));
  }
  return references;
}

/**
 * What a write knows before it starts, so that settling the record needs no query (on SQLite it runs inside the
 * transaction, which holds the only connection): the lookup tables of its lookup fields, and the records its
 * reference fields name in `input` (`own`: the fields `input` holds, a child write's are the child's), each resolved
 * as the caller may read it. An unknown reference (or one out of reach: the same answer) is recorded as
 * `<Resource>_Unknown<Other>` on its property; the caller checks the errors.
 */
export async function writeContext(
  runtime: Runtime, operation: string, takes: WriteContext['takes'], input: Draft, now = new Date(), own: readonly ResourceField[] = runtime.model.fields,
): Promise<WriteContext> {
  const { model } = runtime;
  const fields = [...model.fields, ...model.children.flatMap((c) => c.fields)];
  const references = await referencesOf(runtime, own, input);
  return { operation, takes, now, caller: currentAccess(), lookups: await lookupTables(runtime, fields), references };
}

/**
 * The references of each child a create stores (`lines[2].productId` when one is unknown or out of reach): one map
 * per item, so each child's rules see its own; a record named by many children is resolved once.
 */
export async function childReferences(runtime: Runtime, child: ChildRuntime, items: readonly Draft[]): Promise<Map<string, WireRecord | undefined>[]> {
  const { fields, property } = child.model;
  if (!fields.some((f) => f.spec.type === 'reference')) return items.map(() => new Map());
  const resolved: Resolved = new Map();
  const all: Map<string, WireRecord | undefined>[] = [];
  for (const [i, item] of items.entries()) all.push(await referencesOf(runtime, fields, item, `${property}[${i}].`, resolved));
  return all;
}

/** Whether `record` gives a value to a reference field whose target is soft-deletable (then keepReferences has work). */
export function refersToSoftDeletable(fields: readonly ResourceField[], record: Draft): boolean {
  return fields.some((f) => f.spec.type === 'reference' && f.stored && record[f.name] != null && Boolean(targetModel(f.spec.reference!).softDelete));
}

/**
 * Inside a create's transaction (or an update's, a child write's or a restore's that gives such a reference), before
 * its rows: each record a reference field of `record` names in a soft-deletable resource is still not deleted, read
 * with a lock that a concurrent delete's must wait for (PostgreSQL's `for key share`, which the delete's `for update`
 * excludes; SQLite writes one at a time). A delete that came first makes it an unknown reference (the create's own
 * answer for one, and the transaction rolls back); one that comes after sees the new record and answers 409
 * Entity_InUse. Resolved before the transaction, a reference could be deleted meanwhile (and a soft delete would not
 * see this record refer to it). A hard delete needs no lock here: the store's foreign key settles it
 * (refusedReference). `checked`: the records already read by this write.
 */
export async function keepReferences(
  trx: QueryExecutorProvider, runtime: Runtime, fields: readonly ResourceField[], record: Draft, prefix = '', checked = new Set<string>(),
): Promise<void> {
  await stillThere(trx, runtime, fields, record, prefix, checked, true);
}

/** The unknown references among those `record` gives, recorded; `locked`: only soft-deletable targets, read under a lock. */
async function stillThere(
  db: QueryExecutorProvider, runtime: Runtime, fields: readonly ResourceField[], record: Draft, prefix: string, checked: Set<string>, locked: boolean,
): Promise<void> {
  const lock = locked && runtime.storage.dialect.locksRows ? sql` for key share` : sql``;
  const errors = currentErrors();
  for (const f of fields) {
    const id = record[f.name];
    if (f.spec.type !== 'reference' || id == null || !f.stored) continue;
    const target = targetModel(f.spec.reference!);
    // Once per record for one write: a document's children naming one customer lock it once.
    if ((locked && !target.softDelete) || checked.has(`${target.table}:${String(id)}`)) continue;
    checked.add(`${target.table}:${String(id)}`);
    const live = target.softDelete ? sql` and ${sql.ref(target.softDelete)} is null` : sql``;
    const { rows } = await sql<{ n: number }>`select 1 as n from ${sql.table(target.table)} where ${sql.ref(target.keyColumn)} = ${id}${live}${lock}`.execute(db);
    if (!rows.length) errors.add(unknownReference(runtime.model.pascal, target, id, prefix + f.name));
  }
  errors.abortIfHasErrors();
}

/** Fields, the record that gives them values, and the prefix of their properties in messages (`lines[2].`). */
export type GivenReferences = readonly [readonly ResourceField[], Draft, string];

/**
 * `write` answered as the unknown reference it names when the store's foreign key refused it: a record it refers to
 * (of a resource without soft delete) was deleted after the write's check and before its insert or update, which
 * was a 500. The references are read again once it failed; any other failure is the write's own.
 */
export async function refusedReference<T>(runtime: Runtime, write: () => Promise<T>, given: readonly GivenReferences[]): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isForeignKeyViolation(err)) throw err;
    const checked = new Set<string>();
    for (const [fields, record, prefix] of given) await stillThere(runtime.db, runtime, fields, record, prefix, checked, false);
    throw err;
  }
}
