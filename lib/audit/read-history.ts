import { sql } from 'kysely';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { Output } from '../envelope/output.js';
import { currentAccess, currentErrors } from '../envelope/request-scope.js';
import { type RecordScopes, scopeCondition } from '../storage/record-scope.js';
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
  /** The service's record scopes; the route's permission decides which apply to the caller (scopeCondition). */
  scopes?: RecordScopes;
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
 * indexed read; the page is a range of the index (entity, record_id, id).
 */
export async function readHistory(
  storage: Storage, source: HistorySource, recordId: number | string, page: HistoryPage, maxRows: number,
): Promise<Output<AuditEntry[]>> {
  const notFound = () => {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: source.name, id: recordId }));
    return Output.of<AuditEntry[]>();
  };
  const scope = scopeCondition(source.scopes, 'r');
  const record = (await sql<{ in_scope: number | boolean }>`select ${scope ? sql`case when ${scope} then 1 else 0 end` : sql`1`} as in_scope
    from ${sql.table(source.table)} as r where ${sql.ref(`r.${source.key}`)} = ${recordId}`.execute(storage.db)).rows[0];
  if (record && !Number(record.in_scope)) return notFound();
  if (!record && !readsDeleted(source.deletePermission)) return notFound();

  const db = storage.db.withTables<AuditTables>();
  const ofRecord = db.selectFrom('audit_entry').where('entity', '=', source.entity).where('record_id', '=', String(recordId));
  if (!record && !(await ofRecord.select('id').limit(1).executeTakeFirst())) return notFound();
  const take = Math.min(page.take ?? maxRows, maxRows);
  const rows = await ofRecord.select(['at', 'user_name', 'operation', 'changes'])
    .orderBy('id', 'desc').limit(take + 1).offset(page.skip ?? 0).execute();
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
