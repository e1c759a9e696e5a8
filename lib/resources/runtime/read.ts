import { sql } from 'kysely';
import { attachETag } from '../../etag.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import { Output } from '../../envelope/output.js';
import { currentAccess, currentErrors, withDeletedView } from '../../envelope/request-scope.js';
import { type ListCriteria, readListRows } from '../../storage/list-query.js';
import type { WireValue } from '../field.js';
import type { ChildRuntime, Runtime } from './context.js';
import type { Draft, Row } from './values.js';
import { readForWrite } from './write-record.js';

/** A record as reads answer it: key, fields, children, revision (the wire's order: clients and caches compare bytes). */
export type WireOutput = { [property: string]: WireValue | Draft[] | undefined };

/** One child of a read row: its key and fields. */
function childOf(child: ChildRuntime, row: Row): Draft {
  return child.table.fromSlots(row, { [child.model.key]: row[child.table.keySlot] as number });
}

/** The record of the rows of its read (one per child, or one), or undefined when there are none. */
export function recordOf(runtime: Runtime, rows: readonly Row[]): WireOutput | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const { model, table, children, storage } = runtime;
  const record: WireOutput = table.fromSlots(first, { [model.key]: first[table.keySlot] as number });
  for (const child of children) {
    record[child.model.property] = rows.filter((r) => r[child.table.keySlot] != null).map((r) => childOf(child, r));
  }
  record.revisionNumber = first[model.revision] as number;
  record.modifiedDate = storage.values.toDate(first[model.modified] as string | Date);
  return record;
}

/** `GET /<resource>/{id}`: one statement (kept compiled), through the caller's reach; a 404 for none. */
export async function read(runtime: Runtime, id: number): Promise<Output<WireOutput>> {
  const rows = await runtime.readRecord(runtime.db, { id });
  const record = recordOf(runtime, rows);
  const tag = record && runtime.versions.tagOf(rows[0]);
  if (tag) attachETag(record, tag);
  if (!record) currentErrors().add(MESSAGES.Entity_NotFound({ entity: runtime.model.entity, id }));
  return Output.of(record);
}

/**
 * The record's ETag and revision without its body, as If-Match and a write's new ETag need them (./version-tag.ts):
 * the row with its versions, read as a write reads it (unlocked), through the caller's reach; Entity_NotFound for a
 * record it does not find; the whole record where its tag is the digest of its body.
 */
export async function readTag(runtime: Runtime, id: number): Promise<Output<unknown>> {
  const row = await readForWrite(runtime.db, runtime.storage, runtime.model, id, sql`*`, false, runtime.versions.also);
  if (!row) return Output.of();
  const tag = runtime.versions.tagOf(row);
  return tag ? Output.of(attachETag({ revisionNumber: Number(row[runtime.model.revision]) }, tag)) : read(runtime, id);
}

/** `GET /<resource>`: the list engine over the resource's list definition (counts, cursors, kept builds). */
export async function readList(runtime: Runtime, criteria: ListCriteria<string>): Promise<Output<Draft[]>> {
  const { model } = runtime;
  const deleted = (criteria as { deleted?: { operator: string; values: unknown[] } }).deleted;
  if (!model.softDelete || !deleted) return listOf(runtime, criteria);
  const { deleted: _, ...rest } = criteria as ListCriteria<string> & { deleted?: unknown };
  // deleted=false (or NEQ true) is the usual list; deleted=true turns the filter round, for holders of <name>.delete only.
  const wanted = deleted.values[0] === true ? deleted.operator === 'EQ' : deleted.operator === 'NEQ';
  if (!wanted) return listOf(runtime, rest);
  const access = currentAccess();
  if (access && !access.holds(model.permissions.delete)) {
    const errors = currentErrors();
    errors.add(MESSAGES.Security_Forbidden());
    errors.abortIfHasErrors();
  }
  return access ? withDeletedView(model.permissions.delete, () => listOf(runtime, rest)) : listOf(runtime, rest);
}

async function listOf(runtime: Runtime, criteria: ListCriteria<string>): Promise<Output<Draft[]>> {
  const { model, table } = runtime;
  const { rows, totalCount, nextCursor } = await readListRows<string, Row>(runtime.storage, runtime.list, criteria, runtime.limits);
  return Output.of(rows.map((r) => table.fromSlots(r, { [model.key]: r[model.keyColumn] as number })), totalCount, nextCursor);
}

/** `GET /<resource>/{id}/<children>`: a parent's children; an unknown parent (or one out of reach) is a 404. */
export async function readChildren(runtime: Runtime, child: ChildRuntime, id: number): Promise<Output<Draft[]>> {
  const rows = await child.readAll(runtime.db, { id });
  if (!rows.length) {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: runtime.model.entity, id }));
    return Output.of();
  }
  return Output.of(rows.filter((r) => r[child.table.keySlot] != null).map((r) => childOf(child, r)));
}

/** `GET /<resource>/{id}/<children>/{childId}`: one child; a child of another parent is a 404 like an unknown one. */
export async function readChild(runtime: Runtime, child: ChildRuntime, id: number, childId: number): Promise<Output<Draft>> {
  const rows = await child.readOne(runtime.db, { id, childId });
  const errors = currentErrors();
  if (!rows.length) errors.add(MESSAGES.Entity_NotFound({ entity: runtime.model.entity, id }));
  else if (rows[0][child.table.keySlot] == null) errors.add(MESSAGES.Entity_NotFound({ entity: child.model.entity, id: childId }));
  else return Output.of(childOf(child, rows[0]));
  return Output.of();
}
