import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { sqliteDialect } from '../storage/dialects/sqlite-dialect.js';
import { type SchemaModule, migrateModules } from '../storage/migrations.js';

/** A column as the migrations made it: SQLite's declared type (`varchar(100)`, `integer`…) and its NOT NULL. */
export interface SnapshotColumn {
  readonly type: string;
  readonly notNull: boolean;
}

/**
 * The schema a project's migrations build, as `restlayer migration make` compares a declaration with it: each table's
 * columns, and every other object (index, trigger, FTS table) by name with the SQL that made it.
 */
export interface SchemaSnapshot {
  readonly tables: ReadonlyMap<string, ReadonlyMap<string, SnapshotColumn>>;
  readonly objects: ReadonlyMap<string, string>;
  /** Every index: its table, and its first key (a column's name, or the SQL of the index for an expression). */
  readonly indexes: readonly SnapshotIndex[];
}

export interface SnapshotIndex {
  readonly name: string;
  readonly table: string;
  /** The first column of the index; undefined when its first key is an expression (`lower(name)`). */
  readonly first?: string;
  readonly sql: string;
}

/** The schema of a project with no migrations yet (a new service's first migration is made against it). */
export const EMPTY_SCHEMA: SchemaSnapshot = { tables: new Map(), objects: new Map(), indexes: [] };

/** SQLite's declared type, compared without case or spaces (`VARCHAR(100)` and `varchar( 100 )` are one). */
export const normalType = (type: string) => type.toLowerCase().replace(/\s+/g, '');

/** Reads the schema of an open SQLite database. */
async function readSchema(db: Kysely<unknown>): Promise<SchemaSnapshot> {
  const { rows } = await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`select type, name, tbl_name, sql from sqlite_master
    where name not like 'sqlite_%'`.execute(db);
  const tables = new Map<string, Map<string, SnapshotColumn>>();
  const objects = new Map<string, string>();
  const indexes: SnapshotIndex[] = [];
  for (const row of rows) {
    if (row.type === 'index') {
      const keys = await sql<{ seqno: number; name: string | null }>`select seqno, name from pragma_index_info(${row.name}) order by seqno`.execute(db);
      indexes.push({ name: row.name, table: row.tbl_name, first: keys.rows[0]?.name ?? undefined, sql: row.sql ?? '' });
    }
    if (row.type === 'table' && !/^create virtual table/i.test(row.sql ?? '')) {
      const columns = await sql<{ name: string; type: string; notnull: number }>`select name, type, "notnull" from pragma_table_info(${row.name})`.execute(db);
      tables.set(row.name, new Map(columns.rows.map((c) => [c.name, { type: normalType(c.type), notNull: c.notnull === 1 }])));
    } else {
      objects.set(row.name, row.sql ?? '');
    }
  }
  return { tables, objects, indexes };
}

/**
 * Runs every migration of `modules` into a scratch in-memory SQLite database and reads what they built. The
 * migrations are written once for both providers (their dialect names what differs), so the SQLite rendering stands
 * for the PostgreSQL one: the tables, columns and index names are the same; only column types are compared in
 * SQLite's words (which cannot tell money from integer, both stored as integers there).
 */
export async function schemaOfMigrations(modules: readonly SchemaModule[]): Promise<SchemaSnapshot> {
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  try {
    await migrateModules(db, sqliteDialect, modules);
    return await readSchema(db);
  } finally {
    await db.destroy();
  }
}
