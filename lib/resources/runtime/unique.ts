import { sql } from 'kysely';
import { currentAccess, currentErrors } from '../../envelope/request-scope.js';
import { duplicateValue } from '../messages.js';
import { creatingTenant, scopeCondition } from '../../storage/record-scope.js';
import type { Runtime } from './context.js';
import type { Draft } from './values.js';

/**
 * Answers a value of a unique field that another record holds with 409 Entity_Duplicate on the field, before the
 * write: one indexed read per unique field the write gives. This only gives the usual case its answer early and
 * names the other record; the unique index decides races (its violation answers the same 409: the module declares
 * the index through the resource). `id`: the record being updated, which may keep its own value. A deleted record's
 * values are free (its unique indexes are partial: `where deleted_at is null`). A tenant-owned record's values are
 * unique within its tenant (the indexes lead with `tenant_id`): a created record's is the caller's, an updated one keeps its own.
 */
export async function checkUnique(runtime: Runtime, values: Draft, id?: number): Promise<void> {
  const { model, table } = runtime;
  const errors = currentErrors();
  // With tenancy on, the caller's tenant: the only one its writes reach. Never the stored record's, read before the
  // write finds the record out of reach: another tenant's id would then answer 409 naming a record of that tenant
  // instead of 404. With tenancy off (or outside a request), a created record's tenant, or the updated one's own.
  const tenant = !model.tenant ? sql``
    : currentAccess()?.tenant !== undefined || id === undefined ? sql` and ${sql.ref(model.tenant)} = ${creatingTenant()}`
      : sql` and ${sql.ref(model.tenant)} = (select t.${sql.ref(model.tenant)} from ${sql.table(model.table)} as t where t.${sql.ref(model.keyColumn)} = ${id})`;
  for (const io of table.stored) {
    const { field } = io;
    const value = values[field.name];
    if (!field.spec.unique || value == null) continue;
    const column = sql.ref(field.column);
    const stored = io.write(value);
    const same = field.spec.unique.ignoreCase ? sql`lower(${column}) = lower(${stored})` : sql`${column} = ${stored}`;
    const { rows } = await sql<{ holder: number }>`select ${sql.ref(model.keyColumn)} as holder from ${sql.table(model.table)}
      where ${same}${tenant}${model.softDelete ? sql` and ${sql.ref(model.softDelete)} is null` : sql``}${id === undefined ? sql`` : sql` and ${sql.ref(model.keyColumn)} <> ${id}`} limit 1`.execute(runtime.db);
    // A caller limited by a scope learns that the value is taken, not which record holds it.
    if (rows[0]) errors.add(duplicateValue(model.entity, field.name, value, scopeCondition(model.scopes, model.table) ? undefined : rows[0].holder));
  }
  errors.abortIfHasErrors();
}
