import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The keys a development machine uses when none is configured: one per secret either variant needs. */
export interface DevelopmentKeys {
  bearer: string;
  cookie: string;
  authConfig: string;
}

const FILE = 'development-keys.json';
const fresh = () => randomBytes(32).toString('base64');

function read(path: string): DevelopmentKeys | undefined {
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
  mkdirSync(dirname(path), { recursive: true });
  const keys: DevelopmentKeys = { bearer: fresh(), cookie: fresh(), authConfig: fresh() };
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, JSON.stringify(keys, null, 2) + '\n', { mode: 0o600 });
  try {
    linkSync(draft, path);
    return { keys, path };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process made it first, or an unreadable file is in the way: that one's keys, or a clear failure.
    const theirs = read(path);
    if (!theirs) throw new Error(`${path} exists but does not hold development keys: remove it, and a new one is made`);
    return { keys: theirs, path };
  } finally {
    rmSync(draft, { force: true });
  }
}
