import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const created = new Set<string>();

/** A fresh empty directory under the OS temp dir; `removeTempDirs()` deletes every one made so far. */
export function makeTempDir(prefix = 'restlayer-platform-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.add(dir);
  return dir;
}

/** Writes `files` (relative path → content; objects are written as JSON) below `dir`, creating folders. */
export function writeFiles(dir: string, files: Record<string, string | object>): string {
  for (const [name, content] of Object.entries(files)) {
    const full = join(dir, name);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
  created.clear();
}
