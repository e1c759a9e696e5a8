import type { RawBuilder, SqlBool } from 'kysely';
import { type QueryExecutorProvider, sql } from 'kysely';
import { type RecordReference, type ScopedRecord, allOf, assertInScope, grantCondition, liveCondition, referenceCondition, scopeCondition, softDeleteCondition, tenantCondition } from '../storage/record-scope.js';
import type { ResourceModel } from './model.js';

/**
 * Which records of a resource the current caller reaches: the one place every statement the runtime builds asks
 * (read, list, count, cursor, write, child routes, history, references), so no statement can leave a condition out.
 * The caller's record scopes (lib/storage/record-scope.ts) and, of a soft-deletable resource, the soft-delete
 * filter (the records not deleted, or inside withDeletedView the deleted ones) and, of a tenant-owned resource, the
 * tenant filter (the caller's tenant's records). Undefined: the caller is not limited.
 */
export function reachOf(model: Pick<ResourceModel, 'scopes' | 'softDelete' | 'tenant'>, alias: string): RawBuilder<SqlBool> | undefined {
  return allOf(tenantCondition(model.tenant, alias), scopeCondition(model.scopes, alias), softDeleteCondition(model.softDelete, alias));
}

/**
 * The records whose history the caller reaches: those not deleted as reads reach them, and, of a soft-deletable
 * resource, the deleted ones that the caller's `<name>.delete` grant reaches (with its scopes; contract part 13).
 */
export function historyReachOf(model: Pick<ResourceModel, 'scopes' | 'softDelete' | 'permissions' | 'tenant'>, alias: string): RawBuilder<SqlBool> | undefined {
  if (!model.softDelete) return reachOf(model, alias);
  const live = allOf(liveCondition(model.softDelete, alias), scopeCondition(model.scopes, alias));
  const deleted = allOf(sql<SqlBool>`${sql.ref(`${alias}.${model.softDelete}`)} is not null`, grantCondition(model.scopes, model.permissions.delete, alias));
  return allOf(tenantCondition(model.tenant, alias), sql<SqlBool>`(${live} or ${deleted})`);
}

/**
 * Inside a write's transaction, after it: the record as written must still be in the caller's reach, else 403
 * Security_Forbidden and the transaction rolls back (a create or update may not move a record out of it).
 */
export function assertInReach(trx: QueryExecutorProvider, model: Pick<ResourceModel, 'scopes' | 'table' | 'keyColumn'>, id: number): Promise<void> {
  const record: ScopedRecord = { table: model.table, key: model.keyColumn, id };
  return assertInScope(trx, model.scopes, record);
}

/**
 * How other resources refer to this one's records: resolved with the caller's read permission on it and its scopes,
 * so a record out of reach answers exactly as an unknown one (contract part 10).
 */
export function referenceTo(model: Pick<ResourceModel, 'table' | 'keyColumn' | 'permissions' | 'scopes' | 'softDelete' | 'tenant'>): RecordReference {
  return {
    table: model.table, key: model.keyColumn, readPermission: model.permissions.read,
    ...(model.scopes ? { scopes: model.scopes } : {}), ...(model.softDelete ? { softDelete: model.softDelete } : {}),
    ...(model.tenant ? { tenant: model.tenant } : {}),
  };
}

/**
 * The condition a reference to this resource's records resolves under (`alias`): what the caller's read permission on
 * it reaches (NOTHING without it, its scopes' union when limited; undefined: no limit, as outside a request).
 */
export function referenceReachOf(model: Pick<ResourceModel, 'table' | 'keyColumn' | 'permissions' | 'scopes' | 'softDelete' | 'tenant'>, alias: string): RawBuilder<SqlBool> | undefined {
  return referenceCondition(referenceTo(model), alias);
}

/**
 * The referenced record `id` (every column, as stored) as the current caller may read it: undefined for an unknown id
 * and for one out of reach alike, so the answer tells nothing of records out of reach. One indexed read.
 */
export async function resolveIn<Row extends object>(
  db: QueryExecutorProvider, model: Pick<ResourceModel, 'table' | 'keyColumn' | 'permissions' | 'scopes' | 'softDelete' | 'tenant'>, id: number | string,
): Promise<Row | undefined> {
  const condition = referenceReachOf(model, 'r');
  const { rows } = await sql<Row>`select r.* from ${sql.table(model.table)} as r
    where ${sql.ref(`r.${model.keyColumn}`)} = ${id}${condition ? sql` and ${condition}` : sql``}`.execute(db);
  return rows[0];
}
