import type { AppConfig } from '../config/schema.js';
import { type SchemaModule, migrateModules } from './migrations.js';
import { openPostgres } from './postgres.js';
import type { FaultLog } from './sqlite-faults.js';
import { openSqlite } from './sqlite.js';
import type { Storage } from './storage.js';

export interface OpenOptions {
  log?: (text: string) => void;
  /** Infrastructure faults met while serving (a store unreachable, a connection lost), once per episode. */
  warn?: (text: string) => void;
  /** Bring the schema up to date and seed an empty database (default). Workers skip it: their primary did it. */
  prepare?: boolean;
  /** Where SQLite storage faults are logged (the server's logger). */
  faultLog?: FaultLog;
}

/** Opens the configured store and, unless told otherwise, brings every module up to date: schema, then sample data. */
export async function openStorage(config: AppConfig, modules: readonly SchemaModule[], options: OpenOptions = {}): Promise<Storage> {
  const log = options.log ?? (() => {});
  const queryTimeoutMs = config.Storage.QueryTimeoutSeconds * 1000;
  const storage = config.Storage.Provider === 'postgres'
    ? openPostgres(config.Storage.Postgres.Url, { warn: options.warn ?? log, queryTimeoutMs })
    : openSqlite(config.Storage.Sqlite.Path, {
      readers: config.Storage.Sqlite.ReadWorkers, queryTimeoutMs, mainThreadReadMs: config.Storage.Sqlite.MainThreadReadMilliseconds,
      faultLog: options.faultLog,
    });
  if (options.prepare === false) return storage;
  try {
    if (config.Storage.Provider === 'postgres') await reachPostgres(storage, config.Storage.Postgres.Url);
    await storage.exclusive(async (db) => {
      const applied = await migrateModules(db, storage.values, modules);
      if (applied.length) log(`database schema updated: ${applied.join(', ')}`);
      if (!config.Storage.SampleData) return;
      // Seeds run on the connection that holds the setup lock, like the migrations before them.
      const locked: Storage = { ...storage, db };
      for (const module of modules) {
        const seeded = await module.seed?.(locked);
        if (seeded) log(`empty database: ${seeded}`);
      }
    });
    return storage;
  } catch (err) {
    await storage.close();
    throw err;
  }
}

/**
 * The first query, made alone so that a failure of it is the operator's to fix (server down, wrong host, database,
 * user or password), told as such with the key to look at; the URL is shown without its password.
 */
async function reachPostgres(storage: Storage, url: string): Promise<void> {
  try {
    await storage.ping();
  } catch (err) {
    const { hostname, port, pathname, username } = new URL(url);
    const where = `${username ? `${decodeURIComponent(username)}@` : ''}${hostname}:${port || 5432}${pathname}`;
    throw new Error(`Storage:Postgres:Url: cannot use PostgreSQL at ${where} (${(err as Error).message}); `
      + 'check that the server is running and reachable, and the URL\'s host, port, database, user and password');
  }
}
