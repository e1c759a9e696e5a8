// Fails when the sample application (services/, routes/, web/, test/) reaches into lib/ by path instead of importing
// the layer by its package name (restlayer, restlayer/client, restlayer/testing), as a dependent project must.
// Static imports and re-exports, import(), require() and bare `import '…'` are all checked; a specifier counts when,
// resolved against its file, it lands in lib/. `npm test` runs it before the suites (npm run check:public-imports).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// The project to check: this one, or the folder given (the check's own test points it at made-up projects).
const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const lib = join(root, 'lib');
const folders = ['services', 'routes', 'web', 'test'];
const skipped = new Set(['node_modules', 'dist']);
const source = /\.(?:[cm]?[jt]s|tsx)$/;
const specifiers = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(['"`])([^'"`]+)\1/g;

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // a folder the project does not have
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skipped.has(entry.name)) yield* files(path);
    } else if (source.test(entry.name)) yield path;
  }
}

const found = [];
for (const folder of folders) {
  for (const file of files(join(root, folder))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(specifiers)) {
      const specifier = match[2];
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      if (target !== lib && !target.startsWith(lib + sep)) continue;
      const line = text.slice(0, match.index).split('\n').length;
      found.push(`${relative(root, file)}:${line}: ${specifier}`);
    }
  }
}

if (found.length) {
  console.error(`${found.length} import(s) reach into lib/ by path; import 'restlayer', 'restlayer/client' or 'restlayer/testing' instead:`);
  for (const line of found) console.error(`  ${line}`);
  process.exit(1);
}
console.log('public imports: services/, routes/, web/ and test/ import the layer by its package name only');
