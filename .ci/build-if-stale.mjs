#!/usr/bin/env node
/**
 * `node .ci/build-if-stale.mjs [--web]`, run by `npm start` and `npm run dev` before they serve: builds the server
 * (npm run build:server) when dist/ is missing or a source is newer than its last build, and with --web the browser
 * app (npm run build:web) when dist/web is missing or web/ or the client it bundles changed since. An install builds
 * nothing (it took a third of `npm ci`'s time, the browser app included, for a build that serving or testing makes
 * anyway); `npm test` builds everything itself, and a pack or an install from git builds through `prepack`.
 *
 * Only file times are compared, which costs milliseconds: a source saved without a change builds again, and tsc's
 * incremental build makes that seconds. (lib/cli/stale-build.ts reads tsc's build info for the same question at
 * `serve`; it is part of the build, so it cannot tell whether there is one.)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = process.argv.includes('--web');

/** The newest modification time among the files below `paths` (files or folders), node_modules and dist left out. */
function newest(paths) {
  let found = { time: 0, file: '' };
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules' && name !== 'dist') visit(join(path, name));
    } else if (stat.mtimeMs > found.time) found = { time: stat.mtimeMs, file: path };
  };
  for (const path of paths) visit(join(root, path));
  return found;
}

/** Why `output` needs building from `sources` (missing, or older than the newest source), or undefined. */
function staleness(output, sources) {
  const built = join(root, output);
  if (!existsSync(built)) return `${output} is missing`;
  const source = newest(sources);
  return source.time > statSync(built).mtimeMs ? `${relative(root, source.file)} changed since ${output} was built` : undefined;
}

const builds = [
  // tsc writes its build info last: its time is the build's. What the build compiles: tsconfig.json's "include".
  ['build:server', staleness('dist/.tsbuildinfo', ['bin', 'lib', 'routes', 'services', 'test', 'tsconfig.json'])],
  // Vite writes index.html with the bundles. The app bundles the client's sources (web/vite.config.ts).
  ...(web ? [['build:web', staleness('dist/web/index.html', ['web', 'lib/client'])]] : []),
];
for (const [script, why] of builds) {
  if (!why) continue;
  console.error(`build-if-stale: npm run ${script} (${why})`);
  const npm = process.env.npm_execpath;
  // Under npm (npm start), its own CLI; run directly, the npm on PATH.
  if (npm) execFileSync(process.execPath, [npm, 'run', script], { cwd: root, stdio: 'inherit' });
  else execFileSync('npm', ['run', script], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
}
