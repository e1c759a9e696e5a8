import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Storage } from './storage.js';
import { sqliteValues } from './sql-values.js';
import type { Tables } from './tables.js';

/** The embedded default: one file, WAL journal, every commit synced so a crash loses nothing committed. */
export function openSqlite(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
  return {
    db,
    values: sqliteValues,
    async ping() {
      await sql`select 1`.execute(db);
    },
    // One process owns a database file (workers are prepared by their primary), so no cross-process lock is needed.
    exclusive: (fn) => fn(db),
    async close() {
      await db.destroy();
    },
  };
}
