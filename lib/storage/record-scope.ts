import { type QueryExecutorProvider, type RawBuilder, type SqlBool, sql } from 'kysely';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { currentAccess, currentErrors, viewingDeleted } from '../envelope/request-scope.js';

/**
 * How a record scope limits a service's records: a condition on its table, from the caller's user attributes. A
 * service declares its scopes by name (the sample's sales orders: `own`, the orders whose sales person is the
 * caller's `salesPersonId`); roles grant a permission limited to a scope (`sales-order.read:own` in
 * `Authorization:Roles`). The condition goes inside every query that reaches the records (list, count, cursor page,
 * read, write, history), never after reading them, so pages and counts stay exact.
 */
export interface RecordScope {
  /** One line for people: `restlayer routes`, the OpenAPI document, the docs page. */
  description: string;
  /** Tables the condition reads besides the record's own (a count kept by lib/storage/count-cache.ts follows them too). */
  reads?: readonly string[];
  /**
   * The condition on the record's table under `alias` for a caller with `attributes`. A caller without the
   * attribute the scope needs reaches nothing: answer `NOTHING`, never "no condition". It must depend on its
   * arguments only (or the caller's user name): a list's SQL is kept for repeats of the same request by the same
   * scopes, attributes and user (lib/storage/list-query.ts), so a condition reading the clock or a setting would go stale.
   */
  where(alias: string, attributes: Readonly<Record<string, string>>): RawBuilder<SqlBool>;
}

export type RecordScopes = Readonly<Record<string, RecordScope>>;

/** The condition no record meets. */
export const NOTHING: RawBuilder<SqlBool> = sql<SqlBool>`1 = 0`;

/**
 * The current caller's condition on the table under `alias`, or undefined when the caller is not limited (no scope on
 * the route's permission, or no request: CLI, jobs). Several scopes (several roles) reach the union of their records.
 * A scope this service does not declare reaches nothing (startup refuses such a configuration; this is the fallback).
 */
export function scopeCondition(scopes: RecordScopes | undefined, alias: string): RawBuilder<SqlBool> | undefined {
  const access = currentAccess();
  if (!access?.scopes) return undefined;
  return unionOf(scopes, access.scopes, access.attributes, alias);
}

/** The records any of the scopes `names` reaches, for a caller with `attributes`; NOTHING when the service declares none of them. */
function unionOf(
  scopes: RecordScopes | undefined, names: readonly string[], attributes: Readonly<Record<string, string>>, alias: string,
): RawBuilder<SqlBool> {
  const conditions = names.flatMap((name) => {
    const scope = scopes?.[name];
    return scope ? [scope.where(alias, attributes)] : [];
  });
  if (!conditions.length) return NOTHING;
  return conditions.length === 1 ? conditions[0] : sql<SqlBool>`(${sql.join(conditions, sql` or `)})`;
}

/**
 * How a resource's records are referred to from another resource's (an order's `customerId` names a customer): their
 * table and key column, the permission that reads them and their record scopes. The declared runtime makes it from
 * the referenced resource's declaration (lib/resources/reach.ts, referenceTo) and resolves ids under
 * `referenceCondition`, so a reference reaches exactly the records its caller could read (contract part 10).
 */
export interface RecordReference {
  table: string;
  key: string;
  /** The referenced service's read permission (`customer.read`): a caller without it resolves no reference. */
  readPermission: string;
  /** The referenced service's record scopes: the caller's grant of `readPermission` decides which apply. */
  scopes?: RecordScopes;
  /** Its soft-delete column (`deleted_at`), when its records are soft-deleted: a deleted record resolves as an unknown one. */
  softDelete?: string;
  /** Its tenant column (`tenant_id`), when its records belong to tenants: another tenant's record resolves as an unknown one. */
  tenant?: string;
}

/**
 * The current caller's condition on referenced records under `alias`: what their read permission on that service
 * reaches. NOTHING when they do not hold it, its scopes' union when a scope limits it, undefined (no limit) when it
 * is granted without one or outside a request (the CLI, jobs, seeding).
 */
export function referenceCondition(reference: RecordReference, alias: string): RawBuilder<SqlBool> | undefined {
  // Never a deleted record, whoever asks (also outside a request): a reference to one is a reference to nothing.
  return allOf(
    reference.softDelete && liveCondition(reference.softDelete, alias),
    tenantCondition(reference.tenant, alias),
    grantCondition(reference.scopes, reference.readPermission, alias),
  );
}

/**
 * The tenant filter of a tenant-owned table under `alias` (`column` its `tenant_id`; undefined: shared records): the
 * current caller's tenant's records, none for a caller without a tenant, and no condition when tenancy is off or
 * outside a request (the CLI, jobs, seeding: the operator reaches every tenant).
 */
export function tenantCondition(column: string | undefined, alias: string): RawBuilder<SqlBool> | undefined {
  if (!column) return undefined;
  const tenant = currentAccess()?.tenant;
  if (tenant === undefined) return undefined;
  return tenant === null ? NOTHING : sql<SqlBool>`${sql.ref(`${alias}.${column}`)} = ${tenant}`;
}

/**
 * The tenant a record created now belongs to: the caller's; with tenancy off, or outside a request, '' — no tenant
 * yet, which turning tenancy on gives to `Tenancy:DefaultTenant` (lib/storage/tenant-adoption.ts).
 */
export function creatingTenant(): string {
  return currentAccess()?.tenant ?? '';
}

/** What the current caller's grant of `permission` reaches of a service with `scopes`: NOTHING without it, undefined unlimited. */
export function grantCondition(scopes: RecordScopes | undefined, permission: string, alias: string): RawBuilder<SqlBool> | undefined {
  const access = currentAccess();
  if (!access) return undefined;
  if (!access.holds(permission)) return NOTHING;
  const names = access.scopesOf(permission);
  return names ? unionOf(scopes, names, access.attributes, alias) : undefined;
}

/** The records of a soft-deletable table under `alias` that are not deleted (`column`: its `deleted_at`). */
export function liveCondition(column: string, alias: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(`${alias}.${column}`)} is null`;
}

/**
 * The soft-delete filter of a table under `alias` (`column` its `deleted_at`; undefined: not soft-deletable): the
 * records not deleted, or inside withDeletedView the deleted ones. Every statement of such records takes it.
 */
export function softDeleteCondition(column: string | undefined, alias: string): RawBuilder<SqlBool> | undefined {
  if (!column) return undefined;
  return viewingDeleted() ? sql<SqlBool>`${sql.ref(`${alias}.${column}`)} is not null` : liveCondition(column, alias);
}

/** The conjunction of the conditions given (undefined ones left out); undefined for none. */
export function allOf(...conditions: (RawBuilder<SqlBool> | undefined | '' | false)[]): RawBuilder<SqlBool> | undefined {
  const given = conditions.filter((c): c is RawBuilder<SqlBool> => Boolean(c));
  if (given.length <= 1) return given[0];
  return sql<SqlBool>`(${sql.join(given, sql` and `)})`;
}

/**
 * What a statement kept for repeats must be kept apart by, besides its own inputs: the current caller's record scopes
 * and what their conditions may read (attributes, user name). '' for a caller no scope limits.
 */
export function callerScopeKey(): string {
  const access = currentAccess();
  // The deleted view (withDeletedView) builds other SQL: the soft-delete filter turned round.
  const view = viewingDeleted() ? 'deleted' : '';
  // The tenant filter is a condition with its own value: statements of one tenant are never another's.
  const tenant = access?.tenant === undefined ? view : `${view}@${JSON.stringify(access.tenant)}`;
  return access?.scopes ? tenant + JSON.stringify([access.scopes, access.attributes, access.userName]) : tenant;
}

/** The tables the current caller's scopes read besides the record's own: what a kept count must follow. */
export function scopeReads(scopes: RecordScopes | undefined): readonly string[] {
  const names = currentAccess()?.scopes;
  return names ? names.flatMap((name) => scopes?.[name]?.reads ?? []) : [];
}

/** A record a scoped write checks: its table (also the condition's alias), key column and id. */
export interface ScopedRecord {
  table: string;
  key: string;
  id: number;
}

/**
 * Inside a write's transaction, after the write: whether the record is still in the current caller's scope. A write
 * that would move it out (or create it out) is refused with 403 Security_Forbidden, and the thrown ServiceError
 * rolls the transaction back, so nothing is written. A caller not limited by a scope passes without a query.
 */
export async function assertInScope(trx: QueryExecutorProvider, scopes: RecordScopes | undefined, record: ScopedRecord): Promise<void> {
  const condition = scopeCondition(scopes, record.table);
  if (!condition) return;
  const { rows } = await sql<{ n: number }>`select 1 as n from ${sql.table(record.table)}
    where ${sql.ref(`${record.table}.${record.key}`)} = ${record.id} and ${condition}`.execute(trx);
  if (!rows.length) {
    const errors = currentErrors();
    errors.add(MESSAGES.Security_Forbidden());
    errors.abortIfHasErrors();
  }
}
