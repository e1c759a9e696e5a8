import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The keys a development machine uses when none is configured: one per secret either variant needs. */
export interface DevelopmentKeys {
  bearer: string;
  cookie: string;
  authConfig: string;
}

const FILE = 'development-keys.json';
const fresh = () => randomBytes(32).toString('base64');

/** A keys file that must not be trusted; its message names the file and the fix. */
export class UntrustedKeysFile extends Error {}

/**
 * Refuses a keys file that others could have written or read: one owned by another user (planted beside the
 * database), or one that group or others can read (its keys sign tokens anyone reading it could forge).
 */
function checkPrivate(path: string): void {
  const stat = statSync(path);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new UntrustedKeysFile(`${path} belongs to another user (uid ${stat.uid}, not ${uid}): its keys are not trusted; `
      + 'remove it (a new one is made), or set the keys in the environment (restlayer keys generate prints them)');
  }
  if (stat.mode & 0o077) {
    throw new UntrustedKeysFile(`${path} can be read by other users (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}): its keys are not trusted; `
      + `run chmod 600 ${path} if no one else could have read it, else remove it (a new one is made)`);
  }
}

function read(path: string): DevelopmentKeys | undefined {
  if (!existsSync(path)) return undefined;
  checkPrivate(path);
  try {
    const keys = JSON.parse(readFileSync(path, 'utf8')) as Partial<DevelopmentKeys>;
    const valid = [keys.bearer, keys.cookie, keys.authConfig].every((k) => typeof k === 'string' && k.length >= 32);
    return valid ? keys as DevelopmentKeys : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Development keys kept beside the embedded database (never committed: `data/` is ignored), so that the server, its
 * workers and the CLI sign and check with the same keys, and a restart does not end every session. The file appears
 * whole or not at all: it is written under another name and linked into place, which fails if a concurrent process
 * (a CLI call racing a server start) got there first, whose keys are then read.
 */
export function developmentKeys(databasePath: string): { keys: DevelopmentKeys; path: string } {
  const path = join(dirname(databasePath), FILE);
  const known = read(path);
  if (known) return { keys: known, path };
  return { keys: create(path), path };
}

/** The development keys already kept beside the database, if any: for a look that must write nothing (`config check`). */
export function existingDevelopmentKeys(databasePath: string): { keys: DevelopmentKeys; path: string } | undefined {
  const path = join(dirname(databasePath), FILE);
  const known = read(path);
  return known ? { keys: known, path } : undefined;
}

function create(path: string): DevelopmentKeys {
  mkdirSync(dirname(path), { recursive: true });
  const keys: DevelopmentKeys = { bearer: fresh(), cookie: fresh(), authConfig: fresh() };
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, JSON.stringify(keys, null, 2) + '\n', { mode: 0o600 });
  try {
    linkSync(draft, path);
    return keys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process made it first, or an unreadable file is in the way: that one's keys, or a clear failure.
    const theirs = read(path);
    if (!theirs) throw new Error(`${path} exists but does not hold development keys: remove it, and a new one is made`);
    return theirs;
  } finally {
    rmSync(draft, { force: true });
  }
}
