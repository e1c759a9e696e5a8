import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { exampleResourceFiles } from './example-resource.js';
import { projectFiles } from './project-files.js';
import { readmeFile } from './readme.js';

/** What a name must be to name an npm package and its CLI: lower case, digits, `-`, `.`, `_`, a letter or digit first. */
const PACKAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,213}$/;

export class StarterError extends Error {}

/** Every file of a new project named after the last segment of `dir`, by relative path. */
export function starterFiles(name: string, restlayer: string): Record<string, string> {
  return {
    ...projectFiles({ name, restlayer }),
    ...exampleResourceFiles(`restlayer init ${name}`),
    'README.md': readmeFile(name),
  };
}

/**
 * Writes a new project into `dir` (made when missing; an existing one must be empty, so nothing of a person's is
 * overwritten). Answers its name and the files written.
 */
export function writeStarter(dir: string, restlayer: string): { name: string; root: string; restlayer: string; files: string[] } {
  const root = resolve(dir);
  const name = basename(root);
  if (!PACKAGE_NAME.test(name)) {
    throw new StarterError(`'${name}' cannot name the project (its package and its CLI): use lower-case letters, digits and -, e.g. my-api`);
  }
  if (existsSync(root) && readdirSync(root).length) throw new StarterError(`${root} is not empty: name a new folder (restlayer init my-api)`);
  const files = starterFiles(name, restlayer);
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return { name, root, restlayer, files: Object.keys(files).sort() };
}
