#!/usr/bin/env node
// After an incremental build: removes from dist/ what tsc emitted for a source that is gone (a deleted or renamed
// .ts file), which would otherwise still run (a stale test) or be packed. dist/web is Vite's and left alone.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const emitted = /(\.d\.ts|\.js|\.js\.map|\.d\.ts\.map)$/;
let removed = 0;

function prune(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(full);
      if (!readdirSync(full).length) rmSync(full, { recursive: true });
    } else if (emitted.test(entry.name)) {
      const source = join(root, relative(dist, full)).replace(emitted, '.ts');
      if (!existsSync(source)) {
        rmSync(full);
        removed++;
      }
    }
  }
}

for (const folder of ['lib', 'bin', 'services', 'routes', 'test']) if (existsSync(join(dist, folder))) prune(join(dist, folder));
if (removed) console.log(`prune-dist: removed ${removed} file(s) whose source is gone`);
