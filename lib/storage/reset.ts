import { existsSync, renameSync, rmSync } from 'node:fs';
import { sql } from 'kysely';
import Database from 'better-sqlite3';
import type { AppConfig } from '../config/schema.js';
import { type SchemaModule, historyTable } from './migrations.js';
import { setupLockPath, withSetupLock } from './sqlite-setup-lock.js';
import { openStorage } from './open-storage.js';
import { storageProvider } from './providers.js';

/** Where the configured store is, for a person: a file, or a database on a host (never a password). */
export function storageName(config: AppConfig): string {
  if (config.Storage.Provider === 'sqlite') return `${config.Storage.Sqlite.Path} (SQLite)`;
  try {
    const url = new URL(config.Storage.Postgres.Url);
    return `database ${url.pathname.slice(1)} on ${url.hostname}:${url.port || 5432} (PostgreSQL)`;
  } catch {
    return 'the PostgreSQL database of Storage:Postgres:Url';
  }
}

/** The files of an SQLite database: the file, its write-ahead log and shared memory, a rollback journal. */
const sqliteFiles = (path: string) => ['', '-wal', '-shm', '-journal'].map((suffix) => `${path}${suffix}`);

/**
 * Starts the configured store over: its records go, then the schema and sample data are made as on a first start
 * (`log` hears what was made). An SQLite database is made anew beside the old one and then put in its place with one
 * rename, so whatever opens the path sees the old database or the complete new one, never a half-made one. On
 * PostgreSQL the connection's current schema (where the migrations put every table) is dropped with everything in it
 * and made again. Answers what was done, for a person.
 */
export async function resetStorage(config: AppConfig, modules: readonly SchemaModule[], log: (text: string) => void): Promise<string> {
  if (config.Storage.Provider === 'sqlite') {
    const path = config.Storage.Sqlite.Path;
    if (path === ':memory:') return 'in memory: made anew at each start';
    const fresh = `${path}.reset`;
    for (const file of sqliteFiles(fresh)) rmSync(file, { force: true });
    const existed = existsSync(path);
    try {
      await (await openStorage({ ...config, Storage: { ...config.Storage, Sqlite: { ...config.Storage.Sqlite, Path: fresh } } }, modules, { log })).close();
    } finally {
      // The path's own lock file stays (another process may be waiting on it); the one made for the new file goes.
      rmSync(setupLockPath(fresh), { force: true });
    }
    // Not while another process sets the database up (a server starting): it would go on in the file moved away.
    await withSetupLock(path, async () => {
      for (const file of sqliteFiles(path).slice(1)) rmSync(file, { force: true });
      renameSync(fresh, path);
    });
    return existed ? 'made anew' : 'made';
  }
  const storage = storageProvider(config).open(config, { warn: () => {} });
  try {
    await storageProvider(config).reach?.(storage, config);
    await storage.exclusive(async (db) => {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      const schema = rows[0]?.schema ?? 'public';
      await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
      await sql`create schema ${sql.id(schema)}`.execute(db);
    });
  } finally {
    await storage.close();
  }
  await (await openStorage(config, modules, { log })).close();
  return 'every table dropped and made anew';
}

/**
 * Whether the configured store can be used, tried without changing it: PostgreSQL is connected to and asked a query
 * (startup's own first query, with its hints); an SQLite file that exists is opened read-only and read, one that does
 * not exist yet is made by the first start. Answers what was found; throws, with what to do, when it cannot be used.
 */
export async function probeStorage(config: AppConfig): Promise<string> {
  if (config.Storage.Provider === 'sqlite') {
    const path = config.Storage.Sqlite.Path;
    if (path === ':memory:') return 'in memory (SQLite): made at each start';
    if (!existsSync(path)) return `${path} (SQLite) does not exist yet: the first start makes it, with its schema and the sample data`;
    let database: Database.Database | undefined;
    try {
      database = new Database(path, { readonly: true, fileMustExist: true });
      const { tables } = database.prepare('select count(*) as tables from sqlite_master where type = \'table\'').get() as { tables: number };
      return `${path} (SQLite) opened: ${tables} tables`;
    } catch (err) {
      throw new Error(`Storage:Sqlite:Path: cannot read ${path} (${(err as Error).message}); check the file, its folder and their permissions`);
    } finally {
      database?.close();
    }
  }
  const provider = storageProvider(config);
  const storage = provider.open(config, { warn: () => {} });
  try {
    await provider.reach?.(storage, config);
    return `${storageName(config)} reached`;
  } finally {
    await storage.close();
  }
}

/**
 * The migrations of `module` that the configured store records as applied, read without changing anything: none when
 * the database or the module's history does not exist yet. Throws when the store cannot be read.
 */
export async function appliedMigrations(config: AppConfig, module: string): Promise<string[]> {
  const table = historyTable(module);
  if (config.Storage.Provider === 'sqlite') {
    const path = config.Storage.Sqlite.Path;
    if (path === ':memory:' || !existsSync(path)) return [];
    const database = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const known = database.prepare('select 1 from sqlite_master where type = \'table\' and name = ?').get(table);
      return known ? (database.prepare(`select name from "${table}" order by name`).all() as { name: string }[]).map((r) => r.name) : [];
    } finally {
      database.close();
    }
  }
  const provider = storageProvider(config);
  const storage = provider.open(config, { warn: () => {} });
  try {
    await provider.reach?.(storage, config);
    const exists = await sql<{ found: string | null }>`select to_regclass(${table})::text as found`.execute(storage.db);
    if (!exists.rows[0]?.found) return [];
    const { rows } = await sql<{ name: string }>`select name from ${sql.table(table)} order by name`.execute(storage.db);
    return rows.map((r) => r.name);
  } finally {
    await storage.close();
  }
}
