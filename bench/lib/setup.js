// Before anything else: the bench's own dependencies (exactly what `npm ci --prefix bench` installs) and a built
// product (dist/, rebuilt when a source file is newer than it). Only node: modules here, so it runs before npm ci.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = fileURLToPath(new URL('../', import.meta.url));
export const projectRoot = join(benchDir, '..');
export const cliPath = join(projectRoot, 'dist', 'bin', 'restlayer.js');
export const resultsDir = join(benchDir, 'results');

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export function ensureInstalled() {
  // A dependency added since the last install (the NestJS peer's) also calls for `npm ci`.
  if (['autocannon', '@nestjs/core', 'typeorm'].every((p) => existsSync(join(benchDir, 'node_modules', p, 'package.json')))) return;
  console.log('bench: installing its dependencies (npm ci --prefix bench)');
  execFileSync(npm, ['ci', '--prefix', benchDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const nestDir = join(benchDir, 'peers', 'nest');
export const nestMain = join(nestDir, 'dist', 'main.js');

/** Compiles the NestJS peer (TypeScript with decorators, as Nest projects are) when its dist/ is missing or stale. */
export function ensureNestBuilt() {
  const built = existsSync(nestMain) ? statSync(nestMain).mtimeMs : 0;
  if (built && newestSource(join(nestDir, 'src')) <= built && statSync(join(nestDir, 'tsconfig.json')).mtimeMs <= built) return;
  console.log('bench: compiling the NestJS peer (npx tsc -p bench/peers/nest)');
  execFileSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['tsc', '-p', nestDir], { cwd: projectRoot, stdio: 'inherit' });
}

/** Builds the product (`npx tsc -p .`) when dist/ is missing or older than a source file. */
export function ensureBuilt() {
  const sources = ['bin', 'lib', 'routes', 'services'].map((d) => join(projectRoot, d)).filter(existsSync);
  const built = existsSync(cliPath) ? statSync(cliPath).mtimeMs : 0;
  if (built && Math.max(...sources.map(newestSource)) <= built) return;
  console.log(built ? 'bench: sources changed since the last build, rebuilding (npx tsc -p .)' : 'bench: building the product (npx tsc -p .)');
  execFileSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['tsc', '-p', '.'], { cwd: projectRoot, stdio: 'inherit' });
}
