#!/usr/bin/env node
/**
 * `npm run pack [-- --pack-destination DIR] [--stage DIR]`: the package as it is published. dist/package/ gets the layer bundled
 * (esbuild over the build in dist/: one file per entry point — the package's exports, its bin, the layer's own route
 * files and the SQLite reader's process and thread, which are loaded by path — and the code they share in
 * dist/lib/chunks/), the declarations its typed entry points reach, config/, docs/, README.md and a package.json
 * without scripts or devDependencies; then `npm pack dist/package` packs it. The build itself (npm run build) is
 * this repository's, compiled file by file; dist/package is only for packing (`npm publish dist/package`).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
// `--stage DIR` puts the package elsewhere (tests pack side by side, each into a folder of its own); other arguments go to npm pack.
const args = process.argv.slice(2);
const stageAt = args.indexOf('--stage');
const out = stageAt >= 0 ? args.splice(stageAt, 2)[1] : join(dist, 'package');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

if (!existsSync(join(dist, 'lib', 'index.js'))) {
  console.error('pack: dist/ is not built: run npm run build first (npm run pack does)');
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });

/** The built .js files below `dir` (a test of a private module is not part of the package). */
const jsFiles = (dir) => readdirSync(dir, { withFileTypes: true, recursive: true })
  .filter((e) => e.isFile() && e.name.endsWith('.js') && !e.name.endsWith('.test.js'))
  .map((e) => join(e.parentPath, e.name));

// The entry points: what package.json names, and the files the layer loads by path (route files, process entries).
const exported = Object.values(manifest.exports).map((e) => (typeof e === 'string' ? e : e.default)).filter((f) => f.endsWith('.js'));
const entryPoints = [...new Set([
  ...exported, ...Object.values(manifest.bin),
  ...jsFiles(join(dist, 'lib', 'layer-routes')).map((f) => relative(root, f)),
  'dist/lib/storage/sqlite-reader-process.js', 'dist/lib/storage/sqlite-reader-thread.js', 'dist/lib/cli/dev-checker.js',
])].map((f) => join(root, f));

await build({
  entryPoints,
  outbase: dist,
  outdir: join(out, 'dist'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies stay packages the project installs; only restlayer's own modules are bundled.
  packages: 'external',
  chunkNames: 'lib/chunks/[name]-[hash]',
  // Class and function names stay as written: errors, logs and stack traces name them.
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
  // bin/restlayer.js imports the sample application when it is there (in this repository only) by a computed path.
  logOverride: { 'unsupported-dynamic-import': 'silent' },
});

// The declarations a typed entry point reaches, in their places (the layer's own route files have none).
const typed = Object.values(manifest.exports).filter((e) => typeof e === 'object' && e.types).map((e) => join(root, e.types));
const declarations = new Set();
for (const queue = [...typed]; queue.length;) {
  const file = queue.shift();
  if (declarations.has(file)) continue;
  declarations.add(file);
  for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const next = join(dirname(file), fileName.replace(/\.js$/, '.d.ts'));
    if (existsSync(next)) queue.push(next);
  }
}
for (const file of declarations) {
  const to = join(out, relative(root, file));
  mkdirSync(dirname(to), { recursive: true });
  cpSync(file, to);
}

for (const part of ['config', 'docs', 'README.md']) cpSync(join(root, part), join(out, part), { recursive: true });
const { scripts, devDependencies, allowScripts, scarfSettings, restlayer, ...published } = manifest;
void scripts, void devDependencies, void allowScripts, void scarfSettings, void restlayer;
writeFileSync(join(out, 'package.json'), `${JSON.stringify({ ...published, files: ['dist', 'config', 'docs'] }, null, 2)}\n`);

const packArgs = ['pack', out, '--json', ...args];
const [packed] = JSON.parse(execFileSync('npm', packArgs, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
console.log(JSON.stringify([packed]));
console.error(`pack: ${packed.filename}: ${packed.entryCount} files, ${packed.size} bytes (${packed.unpackedSize} unpacked)`);
