import { type QueryExecutorProvider, sql } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';
import { ensureTenantIndexes } from './tenant-indexes.js';

/** What adoption needs of a module: its resources' tables and, of the tenant-owned ones, their tenant column. */
export interface TenantTables {
  readonly resources?: readonly { readonly model: { readonly table: string; readonly keyColumn: string; readonly tenant?: string } }[];
}

/**
 * Turning tenancy on (contract part 12): the records created while it was off ('' in `tenant_id`, the migration's
 * default for rows that existed before the column) are given `defaultTenant`, once, at the start that finds them —
 * so a later change of `Tenancy:DefaultTenant` moves no record. Runs under the setup lock, after the migrations and
 * the seeds. Answers a line for the log per table that had any.
 */
export async function turnTenancyOn(db: QueryExecutorProvider, dialect: StorageDialect, modules: readonly TenantTables[], defaultTenant: string): Promise<string[]> {
  const lines = await adoptUntenanted(db, modules, defaultTenant);
  let made = 0;
  for (const { model } of modules.flatMap((m) => m.resources ?? [])) {
    if (!model.tenant) continue;
    const names = await ensureTenantIndexes(db, dialect, model.table, model.tenant, model.keyColumn);
    if (names.length) lines.push(`tenancy: ${names.length} index(es) of ${model.table} led by ${model.tenant} made: ${names.join(', ')}`);
    made += names.length;
  }
  // New indexes: the planner's statistics (SQLite's ANALYZE) must know them, or it may pass them by.
  if (made) await dialect.refreshStatistics(db);
  return lines;
}

/** The records created while tenancy was off join `defaultTenant` (turnTenancyOn's first step). */
async function adoptUntenanted(db: QueryExecutorProvider, modules: readonly TenantTables[], defaultTenant: string): Promise<string[]> {
  const lines: string[] = [];
  for (const { model } of modules.flatMap((m) => m.resources ?? [])) {
    if (!model.tenant) continue;
    try {
      const result = await sql`update ${sql.table(model.table)} set ${sql.ref(model.tenant)} = ${defaultTenant} where ${sql.ref(model.tenant)} = ''`.execute(db);
      const count = Number(result.numAffectedRows ?? 0n);
      if (count) lines.push(`tenancy: ${count} ${model.table} record(s) created while tenancy was off now belong to tenant '${defaultTenant}' (Tenancy:DefaultTenant)`);
    } catch (err) {
      // A unique value taken in the default tenant by a record made while tenancy was on, and again while it was off.
      throw new Error(`tenancy: the ${model.table} records created while tenancy was off cannot join tenant '${defaultTenant}': `
        + `${err instanceof Error ? err.message : String(err)}. Change the duplicate values (or Tenancy:DefaultTenant) and start again.`);
    }
  }
  return lines;
}
