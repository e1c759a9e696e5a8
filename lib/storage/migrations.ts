import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';
import type { Storage } from './storage.js';

/** What the store needs of a module (lib/modules.ts' ServiceModule has it): its name, schema history and sample data. */
export interface SchemaModule {
  readonly name: string;
  migrations?(dialect: StorageDialect): Record<string, Migration>;
  seed?(storage: Storage): Promise<string | undefined>;
}

/** Where one module's applied migrations are recorded: a history per module, so modules come and go independently. */
export const historyTable = (module: string) => `restlayer_migration_${module.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}`;

/** Before modules had histories of their own, every migration was recorded in Kysely's default table. */
export const LEGACY_HISTORY = 'kysely_migration';

/**
 * A database made before per-module histories keeps what it applied: the module's migrations found in the legacy table
 * are recorded in the module's own history (once, before its first run), so they are not applied twice.
 */
async function adoptLegacyHistory<DB>(db: Kysely<DB>, table: string, names: string[]): Promise<void> {
  // Kysely leaves its own history tables out of introspection unless asked.
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === LEGACY_HISTORY) || tables.some((t) => t.name === table)) return;
  const legacy = await sql<{ name: string; timestamp: string }>`select name, timestamp from ${sql.table(LEGACY_HISTORY)}`.execute(db);
  const adopted = legacy.rows.filter((r) => names.includes(r.name));
  if (!adopted.length) return;
  // Kysely's own history shape, so its migrator takes the table as one it made.
  await db.schema.createTable(table).addColumn('name', 'varchar(255)', (c) => c.primaryKey()).addColumn('timestamp', 'varchar(255)', (c) => c.notNull()).execute();
  for (const row of adopted) await sql`insert into ${sql.table(table)} (name, timestamp) values (${row.name}, ${row.timestamp})`.execute(db);
}

/** Brings every module's schema up to date, module by module in the order given; answers `module/migration` for each applied. */
export async function migrateModules<DB>(db: Kysely<DB>, dialect: StorageDialect, modules: readonly SchemaModule[]): Promise<string[]> {
  const applied: string[] = [];
  for (const module of modules) {
    if (!module.migrations) continue;
    const migrations = module.migrations(dialect);
    const migrationTableName = historyTable(module.name);
    await adoptLegacyHistory(db, migrationTableName, Object.keys(migrations));
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
      migrationTableName,
      migrationLockTableName: `${migrationTableName}_lock`,
    });
    const { error, results = [] } = await migrator.migrateToLatest();
    if (error) throw new Error(`migrating module ${module.name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    for (const r of results) if (r.status === 'Success') applied.push(`${module.name}/${r.migrationName}`);
  }
  return applied;
}
