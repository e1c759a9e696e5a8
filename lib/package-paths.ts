import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest folder above this code that holds restlayer's package.json: the repository, or node_modules/restlayer.
 * Found by walking up rather than by a fixed `../..`, because the same code runs compiled file by file (this
 * repository: dist/lib/<folder>/<file>.js) and bundled (the published package: entries and shared chunks of
 * dist/lib, at other depths; .ci/pack.mjs).
 */
function findPackageRoot(): string {
  const here = fileURLToPath(import.meta.url);
  for (let dir = dirname(here); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'restlayer') return dir;
    if (dirname(dir) === dir) throw new Error(`restlayer: no package.json of restlayer in a folder above ${here}`);
  }
}

let root: string | undefined;

/** A path inside restlayer's package (its config/, package.json, dist/web), however its code is laid out. */
export function packagePath(...parts: string[]): string {
  root ??= findPackageRoot();
  return join(root, ...parts);
}

/** A path inside the layer's build (dist/lib): its own route files, a process's entry. */
export const layerPath = (...parts: string[]): string => packagePath('dist', 'lib', ...parts);
