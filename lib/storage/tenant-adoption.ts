import { type QueryExecutorProvider, sql } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';
import { ensureTenantIndexes, restoreIndexesLedInPlace } from './tenant-indexes.js';
import { uniqueViolation } from './unique-violation.js';

/** A reference column to a tenant-owned table (a resource model's `tenantReferences`), as adoption follows it. */
export interface TenantReference {
  readonly column: string;
  readonly table: string;
  readonly key: string;
  readonly tenant: string;
}

/** What adoption needs of a module: its resources' tables and, of the tenant-owned ones, their tenant and reference columns. */
export interface TenantTables {
  readonly resources?: readonly {
    readonly model: {
      readonly table: string; readonly keyColumn: string; readonly tenant?: string; readonly tenantReferences?: readonly TenantReference[];
      /** Its fields: the stored references among them are columns its rows are looked up by, with no tenant (a delete's referrers). */
      readonly fields?: readonly { readonly column: string; readonly stored: boolean; readonly spec: { readonly type: string } }[];
      /** Tables of other modules whose column refers to its records, looked up the same way. */
      readonly referredToBy?: readonly { readonly table: string; readonly column: string }[];
    };
  }[];
}

/** A resource model of a module that says its records belong to tenants. */
type TenantOwned = NonNullable<TenantTables['resources']>[number]['model'];

const tenantOwnedModels = (modules: readonly TenantTables[]): TenantOwned[] =>
  modules.flatMap((m) => m.resources ?? []).map((r) => r.model).filter((model) => model.tenant);

/**
 * Turning tenancy on (contract part 12), at every start with it on, doing work only the first time: the records
 * created while it was off ('' in `tenant_id`, the migration's default for rows that existed before the column) join a
 * tenant (adoptUntenanted), so a later change of `Tenancy:DefaultTenant` moves no record, and every tenant-owned
 * table's tenant column compares bytes (the dialect's compareBytewise) and gets its tenant-led indexes
 * (lib/storage/tenant-indexes.ts). Runs under the setup lock, after the migrations
 * and the seeds. Answers the lines for the log.
 */
export async function turnTenancyOn(db: QueryExecutorProvider, dialect: StorageDialect, modules: readonly TenantTables[], defaultTenant: string): Promise<string[]> {
  const tenantOwned = tenantOwnedModels(modules);
  const lines: string[] = [];
  // First, so that the twins are built in byte order (the adoption's rewrite, when it takes one, rebuilds the table's
  // indexes once more: a first turn on only).
  let changed = 0;
  for (const model of tenantOwned) {
    if (!await dialect.compareBytewise(db, model.table, model.tenant!)) continue;
    lines.push(`tenancy: ${model.table}.${model.tenant} now compares byte by byte (collation "C"), its indexes built again`);
    changed++;
  }
  lines.push(...await adoptUntenanted(db, dialect, tenantOwned, defaultTenant));
  let made = 0;
  const models = modules.flatMap((m) => m.resources ?? []).map((r) => r.model);
  for (const model of tenantOwned) {
    // The reference columns a record's referrers are counted by (lib/resources/serving.ts, referrersOf), without a tenant.
    const lookedUp = [
      ...(model.fields ?? []).filter((f) => f.stored && f.spec.type === 'reference').map((f) => f.column),
      ...models.flatMap((m) => m.referredToBy ?? []).filter((r) => r.table === model.table).map((r) => r.column),
    ];
    const changes = await ensureTenantIndexes(db, dialect, model.table, model.tenant!, model.keyColumn, lookedUp);
    if (changes.made.length) lines.push(`tenancy: ${changes.made.length} index(es) of ${model.table} led by ${model.tenant} made: ${changes.made.join(', ')}`);
    if (changes.inPlace.length) {
      lines.push(`tenancy: ${changes.inPlace.length} index(es) of ${model.table} now led by ${model.tenant}, in place of their own (made again when tenancy is off): `
        + changes.inPlace.join(', '));
    }
    if (changes.lookUps.length) {
      lines.push(`tenancy: ${changes.lookUps.length} index(es) of ${model.table} made without ${model.tenant} again, beside their twin, for look-ups by a column `
        + `no other index leads with (a foreign key or reference added since): ${changes.lookUps.join(', ')}`);
    }
    made += changes.made.length + changes.inPlace.length + changes.lookUps.length;
  }
  // New indexes: the planner's statistics (SQLite's ANALYZE) must know them, or it may pass them by; a column whose
  // collation changed lost its statistics (PostgreSQL).
  if (made || changed) await dialect.refreshStatistics(db);
  return lines;
}

/**
 * At every start of a process that serves with tenancy off (lib/storage/open-storage.ts, `serving`): the indexes a
 * start with tenancy on made tenant-led in place of their own (lib/storage/tenant-indexes.ts, PostgreSQL) are made as
 * their migrations made them again, so that lists without the tenant filter walk them; nothing to do, one catalog
 * query a table, once they are. Runs under the setup lock, after the migrations. Answers the lines for the log.
 */
export async function turnTenancyOff(db: QueryExecutorProvider, dialect: StorageDialect, modules: readonly TenantTables[]): Promise<string[]> {
  if (!dialect.tenantLedInPlace) return [];
  const lines: string[] = [];
  for (const model of tenantOwnedModels(modules)) {
    const names = await restoreIndexesLedInPlace(db, dialect, model.table, model.tenant!);
    if (names.length) lines.push(`tenancy is off: ${names.length} index(es) of ${model.table} made without ${model.tenant} again: ${names.join(', ')}`);
  }
  if (lines.length) await dialect.refreshStatistics(db);
  return lines;
}

/**
 * The records created while tenancy was off join a tenant (turnTenancyOn's first step): a record that names a
 * tenant-owned record (an order its customer) takes that record's tenant, so that turning tenancy off and on again
 * does not leave an order of one tenant showing another tenant's customer; the others take `defaultTenant`. What
 * still refers across tenants afterwards (two references that disagree) is named in the log.
 */
async function adoptUntenanted(db: QueryExecutorProvider, dialect: StorageDialect, models: readonly TenantOwned[], defaultTenant: string): Promise<string[]> {
  const lines: string[] = [];
  let adopted = 0;
  for (const model of models) {
    const own = sql.ref(model.tenant!);
    for (const ref of model.tenantReferences ?? []) {
      const target = sql`select r.${sql.ref(ref.tenant)} from ${sql.table(ref.table)} as r where r.${sql.ref(ref.key)} = ${sql.ref(`${model.table}.${ref.column}`)}`;
      const result = await tenantUpdate(model.table, defaultTenant, async () => Number((await sql`update ${sql.table(model.table)} set ${own} = (${target})
        where ${own} = '' and coalesce((${target}), '') <> ''`.execute(db)).numAffectedRows ?? 0n));
      adopted += result;
      if (result) lines.push(`tenancy: ${result} ${model.table} record(s) created while tenancy was off now belong to the tenant of the ${ref.table} they refer to`);
    }
  }
  for (const model of models) {
    const result = await adoptByDefault(db, dialect, model.table, model.tenant!, defaultTenant);
    adopted += result;
    if (result) lines.push(`tenancy: ${result} ${model.table} record(s) created while tenancy was off now belong to tenant '${defaultTenant}' (Tenancy:DefaultTenant)`);
  }
  if (adopted) {
    for (const model of models) {
      for (const ref of model.tenantReferences ?? []) {
        const { rows } = await sql<{ id: number | string }>`select t.${sql.ref(model.keyColumn)} as id from ${sql.table(model.table)} as t
          join ${sql.table(ref.table)} as r on r.${sql.ref(ref.key)} = t.${sql.ref(ref.column)}
          where t.${sql.ref(model.tenant!)} <> r.${sql.ref(ref.tenant)} order by 1 limit 20`.execute(db);
        if (rows.length) {
          lines.push(`tenancy: WARNING ${model.table} record(s) ${rows.map((r) => r.id).join(', ')}${rows.length === 20 ? ' (and maybe more)' : ''} refer to `
            + `a ${ref.table} of another tenant (${ref.column}): made while tenancy was off; set their ${model.tenant} in the database to the one they belong to`);
        }
      }
    }
  }
  return lines;
}

/** The records of `table` without a tenant ('') join `defaultTenant` (PostgreSQL rewrites most of a table: its dialect); answers how many. */
function adoptByDefault(db: QueryExecutorProvider, dialect: StorageDialect, table: string, column: string, defaultTenant: string): Promise<number> {
  return tenantUpdate(table, defaultTenant, () => dialect.replaceInColumn(db, table, column, '', defaultTenant));
}

/** One adoption statement; a unique value it would duplicate within the tenant stops the start with what to do. */
async function tenantUpdate(table: string, defaultTenant: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    // A unique value taken in the tenant by a record made while tenancy was on, and again while it was off; any other
    // failure (a lock wait, a lost connection) is itself, not a duplicate to change.
    if (!uniqueViolation(err)) throw err;
    throw new Error(`tenancy: the ${table} records created while tenancy was off cannot join their tenant ('${defaultTenant}' or that of what they refer to): `
      + `${err instanceof Error ? err.message : String(err)}. Change the duplicate values (or Tenancy:DefaultTenant) with tenancy off and start again.`);
  }
}
