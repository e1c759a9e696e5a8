import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';

/** The files SQLite keeps for a database: the database, its write-ahead log and its shared-memory index. */
const sqliteFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`];

/**
 * Makes the database file before SQLite does, readable by its owner alone (0600): it holds password hashes and
 * refresh-token hashes. SQLite gives the -wal and -shm files it creates later the database file's own permissions,
 * so they follow. Files of an older start that others can read, and that this user owns, are narrowed the same way.
 */
export function keepDatabasePrivate(path: string): void {
  // Not a file: in memory, a temporary database, or a URI SQLite resolves itself.
  if (path === ':memory:' || path === '' || path.startsWith('file:')) return;
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  const uid = process.getuid?.();
  for (const file of sqliteFiles(path)) {
    if (!existsSync(file)) continue;
    const stat = statSync(file);
    if ((stat.mode & 0o077) !== 0 && (uid === undefined || stat.uid === uid)) chmodSync(file, stat.mode & 0o700);
  }
}
