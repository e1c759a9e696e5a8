import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { Output } from '../envelope/output.js';
import { currentAccess, currentErrors } from '../envelope/request-scope.js';
import type { Storage } from '../storage/storage.js';
import type { AuditChange, AuditEntry, HistoryPage } from './audit-models.js';
import type { AuditTables } from './audit-tables.js';

/** Where a service's records and their history are: what readHistory needs to answer `GET …/{id}/history`. */
export interface HistorySource {
  /** The name entries are recorded under (AuditRecord.entity): `sales-order`. */
  entity: string;
  /** The records' table and key column: the record must exist and be in the caller's scope. */
  table: string;
  key: string;
  /**
   * The caller's condition on the records' table under `alias` (a resource's reach: scopes, tenant, soft delete;
   * lib/resources/reach.ts); undefined: not limited.
   */
  reach(alias: string): RawBuilder<SqlBool> | undefined;
  /**
   * Whether deleted records stay in their table (soft delete, whose reach then says who reads their history): a record
   * that is not there was purged, and its history answers 404 to everyone.
   */
  kept?: boolean;
  /** Holders of this permission, unlimited by a scope, read the history of a deleted record: `sales-order.delete`. */
  deletePermission: string;
  /** The record's name in messages: `Sales order` (404 Entity_NotFound). */
  name: string;
}

/**
 * Whether the caller may read the history of a record that no longer exists: with `permission` unlimited by a scope
 * (a deleted record cannot be placed in a scope any more), or outside a request (the CLI, jobs).
 */
function readsDeleted(permission: string): boolean {
  const access = currentAccess();
  return !access || (access.holds(permission) && access.scopesOf(permission) === undefined);
}

/**
 * A record's history, newest first, paged by `skip`/`take` (at most `maxRows`, RestAPI:MaxRows: `take` defaults to it
 * and a larger one is cut, with the Service_MaxRows warning, as lists do). A record outside the caller's scope is a
 * 404, as are an unknown id and a deleted record for a caller without `deletePermission`. The record check is one
 * indexed read; the page is a range of the index (entity, record_id, id) (historyPageSql).
 */
export async function readHistory(
  storage: Storage, source: HistorySource, recordId: number | string, page: HistoryPage, maxRows: number,
): Promise<Output<AuditEntry[]>> {
  const notFound = () => {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: source.name, id: recordId }));
    return Output.of<AuditEntry[]>();
  };
  const scope = source.reach('r');
  const record = (await sql<{ in_scope: number | boolean }>`select ${scope ? sql`case when ${scope} then 1 else 0 end` : sql`1`} as in_scope
    from ${sql.table(source.table)} as r where ${sql.ref(`r.${source.key}`)} = ${recordId}`.execute(storage.db)).rows[0];
  if (record && !Number(record.in_scope)) return notFound();
  if (!record && (source.kept || !readsDeleted(source.deletePermission))) return notFound();

  if (!record && !(await entriesOf(storage, source.entity, recordId).select('id').limit(1).executeTakeFirst())) return notFound();
  const take = Math.min(page.take ?? maxRows, maxRows);
  const { rows } = await storage.db.executeQuery(historyPageSql(storage, source.entity, recordId, page.skip ?? 0, take + 1));
  if (rows.length > take) {
    rows.length = take;
    if (page.take == null || page.take > maxRows) currentErrors().add(MESSAGES.Service_MaxRows({ maxRows }));
  }
  return Output.of(rows.map((r) => ({
    at: storage.values.toDate(r.at),
    user: r.user_name,
    operation: r.operation,
    changes: JSON.parse(r.changes) as AuditChange[],
  })));
}

/** A record's entries (all of them, every time it was created). */
function entriesOf(storage: Storage, entity: string, recordId: number | string) {
  return storage.db.withTables<AuditTables>().selectFrom('audit_entry').where('entity', '=', entity).where('record_id', '=', String(recordId));
}

/**
 * The SQL of one page of a record's history, newest first: `limit` entries after `skip`, from the record's latest
 * `create` on (a store that numbers a new record with a deleted one's id, as SQLite reuses the largest rowid, starts
 * the new record's history afresh). Both parts walk the index (entity, record_id, id) backwards from the newest entry.
 * Its plan test: lib/audit/history-plan.test.ts.
 */
export function historyPageSql(storage: Storage, entity: string, recordId: number | string, skip: number, limit: number) {
  return entriesOf(storage, entity, recordId)
    .where('id', '>=', (eb) => eb.fn.coalesce(
      entriesOf(storage, entity, recordId).where('operation', '=', 'create').select('id').orderBy('id', 'desc').limit(1), eb.lit(0)))
    .select(['at', 'user_name', 'operation', 'changes'])
    .orderBy('id', 'desc').limit(limit).offset(skip)
    .compile();
}
