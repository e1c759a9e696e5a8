import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { keepDatabasePrivate } from './private-file.js';

/** How long a process waits for another's setup (migrations, tenancy's first start at a million rows: minutes). */
const WAIT_MS = 30 * 60_000;
/** Pauses between attempts to take the lock. */
const PAUSE_MS = 50;

/** The lock's file beside the database: empty, kept (taking it never writes to it). */
export const setupLockPath = (path: string) => `${path}.setup-lock`;

/**
 * Runs `fn` (schema setup, seeding) while no other process runs its own on the database at `path`: SQLite's
 * PostgreSQL advisory lock. Every process that opens the database sets it up — `serve`, and each CLI command that
 * reaches the services — so a `restlayer user add` run while the server starts on a new database raced its
 * migrations: both created the same tables and one failed ("table app_user already exists"). The lock is an
 * exclusive transaction on a file of its own (the database's own write lock would shut out `fn`'s writes), taken
 * without blocking the event loop and released by the system when a process dies.
 */
export async function withSetupLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const file = setupLockPath(path);
  let lock: Database.Database;
  try {
    // Its owner's alone, as the database: another user able to open it could hold it and stall every start.
    keepDatabasePrivate(file);
    lock = new Database(file, { timeout: 0 });
  } catch (err) {
    throw new Error(`cannot open ${file}, the lock that processes take to set the database up one at a time: ${(err as Error).message}`);
  }
  try {
    for (const deadline = Date.now() + WAIT_MS; ;) {
      try {
        lock.exec('begin exclusive');
        break;
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
        await sleep(PAUSE_MS);
      }
    }
    try {
      return await fn();
    } finally {
      lock.exec('rollback');
    }
  } finally {
    lock.close();
  }
}
