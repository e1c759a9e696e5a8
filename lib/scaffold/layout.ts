import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, posix, relative, resolve } from 'node:path';
import { ScaffoldError } from './scaffold-error.js';

/**
 * Where a project keeps what the scaffold writes, each relative to the project folder (the one holding package.json),
 * with `/` separators.
 */
export interface ProjectLayout {
  /** The folder of service modules: a new service goes to `<services>/<name>/`. */
  services: string;
  /** The application's routes folder (its `routesDir`): the routes go to `<routes>/<name>/`. */
  routes: string;
  /** The folder of tests: the tests go to `<tests>/<name>/`. */
  tests: string;
  /** The file exporting `modules` (the module list the new module joins), `route` and `application`. */
  modules: string;
}

export type LayoutKey = keyof ProjectLayout;
export const LAYOUT_KEYS: readonly LayoutKey[] = ['services', 'routes', 'tests', 'modules'];

/** The conventions, in the order they are tried: the first whose module list exists is the project's. */
const CONVENTIONS: ProjectLayout[] = [
  { services: 'services', routes: 'routes', tests: 'test', modules: 'services/index.ts' },
  { services: 'src/services', routes: 'src/routes', tests: 'src/test', modules: 'src/app.ts' },
];

const conflict = (text: string) => new ScaffoldError(text, 'conflict');

/** The `restlayer` section of the project's package.json, checked: only the layout keys, each a string. */
function packageSection(root: string): Partial<ProjectLayout> {
  const file = join(root, 'package.json');
  if (!existsSync(file)) return {};
  let pkg: unknown;
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw conflict(`package.json: ${(err as Error).message}`);
  }
  const section = (pkg as { restlayer?: unknown }).restlayer;
  if (section === undefined) return {};
  if (!section || typeof section !== 'object' || Array.isArray(section)) throw conflict('package.json: "restlayer" must be an object such as { "services": "src/services" }');
  const out: Partial<ProjectLayout> = {};
  for (const [key, value] of Object.entries(section)) {
    if (!(LAYOUT_KEYS as readonly string[]).includes(key)) throw conflict(`package.json: "restlayer" has no setting "${key}" (use ${LAYOUT_KEYS.join(', ')})`);
    if (typeof value !== 'string' || !value) throw conflict(`package.json: "restlayer.${key}" must be a path relative to the project folder`);
    out[key as LayoutKey] = value;
  }
  return out;
}

/** `path` relative to `root` with `/` separators; refused when absolute or outside the project. */
function inside(root: string, path: string, where: string): string {
  const rel = relative(root, resolve(root, path)).split('\\').join('/');
  if (isAbsolute(path) || !rel || rel.startsWith('../') || rel === '..') {
    throw new ScaffoldError(`${where}: '${path}' must be a folder or file inside the project, relative to it`, 'usage');
  }
  return posix.normalize(rel);
}

/**
 * The project's layout: each path from the flags, else from package.json's `restlayer` section, else from the first
 * convention whose module list exists (services/index.ts, then src/app.ts). The module list must exist.
 */
export function projectLayout(root: string, flags: Partial<ProjectLayout> = {}): ProjectLayout {
  const section = packageSection(root);
  const modulesGiven = flags.modules ?? section.modules;
  const convention = CONVENTIONS.find((c) => existsSync(join(root, modulesGiven ?? c.modules))) ?? CONVENTIONS[0];
  const layout = {} as ProjectLayout;
  for (const key of LAYOUT_KEYS) {
    const [value, where] = flags[key] !== undefined ? [flags[key], `--${key}`] : section[key] !== undefined ? [section[key], `package.json restlayer.${key}`] : [convention[key], key];
    layout[key] = inside(root, value, where);
  }
  if (!existsSync(join(root, layout.modules))) {
    throw conflict(
      `${root} has no ${layout.modules}, the file exporting the application's modules list: run restlayer new service in the project folder, `
      + 'or say where things are with a "restlayer" section in package.json ({ "services", "routes", "tests", "modules" }) or the flags of the same names',
    );
  }
  return layout;
}

/** The import specifier of project file `to` from project file `from` (`.ts` written `.js`, as Node resolves the build). */
/**
 * Where the scaffold puts a file of a module's folder, relative to the project: `serviceFile(layout, 'invoice',
 * 'invoice')` is its declaration, `'invoice-proxy'` its proxy. `migration make` finds the files it edits or imports here.
 */
export const serviceFile = (layout: Pick<ProjectLayout, 'services'>, module: string, name: string) => `${layout.services}/${module}/${name}.ts`;

export function importPath(from: string, to: string): string {
  const rel = posix.relative(posix.dirname(from), to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}
