import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { serviceFiles, serviceFolders } from './files.js';
import { type ProjectLayout, importPath, projectLayout } from './layout.js';
import { childParentIndexName } from './child-spec.js';
import { registerModule } from './register-module.js';
import { ScaffoldError } from './scaffold-error.js';
import { type ServiceSpec, fullTextNames, indexNames } from './spec.js';
import { layerPath } from '../package-paths.js';

export interface WriteOptions {
  /** The project folder: the one holding package.json. */
  root: string;
  /** Where services, routes, tests and the module list are, when not as package.json's `restlayer` section or the conventions say. */
  layout?: Partial<ProjectLayout>;
  /** Overwrite the generated files of an existing module instead of refusing. */
  force?: boolean;
}

export interface WriteResult {
  /** The files written, relative to the project folder. */
  files: string[];
  /** What changed in the module list file (nothing when the module was listed already). */
  registration: string[];
  /** Where the project keeps things, as found. */
  layout: ProjectLayout;
}

const conflict = (text: string) => new ScaffoldError(text, 'conflict');

/** Every .ts/.js file below `dir`, skipping `skip` and node_modules. */
function sourceFiles(dir: string, skip?: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (full === skip || name === 'node_modules') return [];
    if (statSync(full).isDirectory()) return sourceFiles(full, skip);
    return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Who creates a table or an index: a file of the project, or the layer. */
interface Creator {
  /** Names created literally (`createTable('x')`). */
  exact: Map<string, string>;
  /** Starts of names built in a template (`createIndex(\`ix_sales_order_${column}\`)`): any name starting so may be taken. */
  prefixes: Map<string, string>;
}

/** The tables and indexes `files` create, each with the label of its file. */
function namesCreatedIn(files: string[], label: (file: string) => string, into: Creator): Creator {
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/create(?:Table|Index|ListIndex|FoldedIndex|KeyIndex)\(\s*(?:'([A-Za-z0-9_]+)'|"([A-Za-z0-9_]+)"|`([A-Za-z0-9_]+)`)/g)) {
      const name = match[1] ?? match[2] ?? match[3];
      if (!into.exact.has(name)) into.exact.set(name, label(file));
    }
    for (const [, prefix] of text.matchAll(/create(?:Table|Index|ListIndex|FoldedIndex|KeyIndex)\(\s*`([A-Za-z0-9_]+)\$\{/g)) {
      if (!into.prefixes.has(prefix)) into.prefixes.set(prefix, label(file));
    }
    // A trigram index is named after its table, which the `listIndexes(db, dialect, 'table', ...)` before it names.
    let table: string | undefined;
    for (const [, listTable, column] of text.matchAll(/listIndexes\(\s*\w+,\s*\w+,\s*'([A-Za-z0-9_]+)'|createFullTextIndex\(\s*'([A-Za-z0-9_]+)'/g)) {
      if (listTable) table = listTable;
      else if (table) for (const name of fullTextNames({ table }, { column })) if (!into.exact.has(name)) into.exact.set(name, label(file));
    }
  }
  return into;
}

/**
 * Tables and indexes share one namespace per database: a new module must not create a name that another module or
 * the layer itself (its compiled files beside this one) already creates.
 */
function checkSqlNames(spec: ServiceSpec, root: string, layout: ProjectLayout) {
  const layer = layerPath();
  const taken: Creator = { exact: new Map(), prefixes: new Map() };
  namesCreatedIn(sourceFiles(join(root, layout.services), join(root, layout.services, spec.kebab)), (file) => relative(root, file).split(sep).join('/'), taken);
  // The layer's own tests (in this repository's build; the package leaves them out) create nothing in a project's database.
  const layerFiles = sourceFiles(layer).filter((file) => !/\.test\.js$/.test(file));
  namesCreatedIn(layerFiles, (file) => `the layer (lib/${relative(layer, file).split(sep).join('/').replace(/\.js$/, '')})`, taken);
  const child = spec.child ? [spec.child.table, childParentIndexName(spec.child)] : [];
  for (const name of [spec.table, ...indexNames(spec), ...child]) {
    const owner = taken.exact.get(name) ?? [...taken.prefixes].find(([prefix]) => name.startsWith(prefix))?.[1];
    if (owner) throw conflict(`${owner} already creates the table or index ${name}: choose another service${name === spec.table ? '' : ' or field'} name`);
  }
}

/**
 * Writes a new service into the project: its module, routes and tests where the project's layout keeps them, then
 * registers the module in the project's module list. Everything is checked before the first file is written, so a refusal leaves the project as it was.
 */
export async function writeService(spec: ServiceSpec, options: WriteOptions): Promise<WriteResult> {
  const { root } = options;
  const layout = projectLayout(root, options.layout);
  const indexFile = join(root, layout.modules);
  if (!options.force) {
    const existing = [...serviceFolders(spec, layout), `${layout.routes}/${spec.kebab}.ts`].filter((path) => existsSync(join(root, path)));
    if (existing.length) throw conflict(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}: choose another name, or pass --force to overwrite the generated files`);
  }
  checkSqlNames(spec, root, layout);
  const moduleFile = `${layout.services}/${spec.kebab}/module.ts`;
  const registration = await registerModule(readFileSync(indexFile, 'utf8'), `${spec.camel}Module`, importPath(layout.modules, moduleFile), layout.modules);

  const files = serviceFiles(spec, layout);
  for (const file of files) {
    const full = join(root, ...file.path.split('/'));
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, file.content);
  }
  if (registration.changes.length) writeFileSync(indexFile, registration.text);
  return { files: files.map((f) => f.path), registration: registration.changes, layout };
}
