import { createHash } from 'node:crypto';
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';
import type { Storage } from './storage.js';
import type { TenantTables } from './tenant-adoption.js';

/** What the store needs of a module (lib/modules.ts' ServiceModule has it): its name, schema history and sample data. */
export interface SchemaModule extends TenantTables {
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

/** Where the text of each applied migration is recorded (its SHA-256), to tell when the text changed after it ran. */
export const CHECKSUM_TABLE = 'restlayer_migration_checksum';

/**
 * A migration's text as it runs: its functions' source. A change to it after the migration ran (a scaffold rewritten
 * with --force, an edit of 0001) is not applied again: the database keeps what the old text made.
 */
export function migrationChecksum(migration: Migration): string {
  return createHash('sha256').update(`${migration.up.toString()}\n${migration.down?.toString() ?? ''}`).digest('hex');
}

/** What migrating found: the migrations applied now, and the applied ones whose text has changed since they ran. */
export interface MigrationOutcome {
  /** `module/migration` for each applied now. */
  applied: string[];
  /** `module/migration` for each that ran before with another text. */
  changed: string[];
}

/**
 * Records the checksum of every applied migration of `module` that has none (applied now, or before checksums were
 * kept), and answers those whose recorded checksum differs from their text now.
 */
async function checkApplied<DB>(db: Kysely<DB>, module: string, migrations: Record<string, Migration>): Promise<string[]> {
  await db.schema.createTable(CHECKSUM_TABLE).ifNotExists()
    .addColumn('module', 'varchar(255)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('checksum', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${CHECKSUM_TABLE}_pk`, ['module', 'name'])
    .execute();
  const ran = await sql<{ name: string }>`select name from ${sql.table(historyTable(module))}`.execute(db);
  const recorded = new Map((await sql<{ name: string; checksum: string }>`select name, checksum from ${sql.table(CHECKSUM_TABLE)} where module = ${module}`
    .execute(db)).rows.map((r) => [r.name, r.checksum]));
  const changed: string[] = [];
  for (const { name } of ran.rows) {
    const migration = migrations[name];
    if (!migration) continue;
    const checksum = migrationChecksum(migration);
    const before = recorded.get(name);
    if (before === undefined) {
      await sql`insert into ${sql.table(CHECKSUM_TABLE)} (module, name, checksum) values (${module}, ${name}, ${checksum})`.execute(db);
    } else if (before !== checksum) {
      changed.push(`${module}/${name}`);
    }
  }
  return changed;
}

/**
 * Brings every module's schema up to date, module by module in the order given; answers what it applied, and which
 * applied migrations have a text that changed since they ran (checksums kept in CHECKSUM_TABLE).
 */
export async function migrateModules<DB>(db: Kysely<DB>, dialect: StorageDialect, modules: readonly SchemaModule[]): Promise<MigrationOutcome> {
  const applied: string[] = [];
  const changed: string[] = [];
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
    changed.push(...await checkApplied(db, module.name, migrations));
  }
  return { applied, changed };
}
