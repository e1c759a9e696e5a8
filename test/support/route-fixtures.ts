import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from './processes.js';
import { makeTempDir, writeFiles } from './temp.js';

const built = (path: string) => pathToFileURL(join(projectRoot, 'dist', path)).href;

/** What a route file written at test time starts with: `route`, `Output` and the input fields, from the build. */
export const routePreamble = [
  `import { route } from '${built('lib/routing/route.js')}';`,
  `import { Output } from '${built('lib/envelope/output.js')}';`,
  `import { model, text, integer } from '${built('lib/validation/fields.js')}';`,
  '',
].join('\n');

/**
 * A temporary routes folder: each entry is a file path below it (e.g. `items/[itemId].js`) and its ESM source.
 * `.js` sources get the preamble above; other files are written as given.
 */
export function routeFolder(files: Record<string, string>): string {
  const withPreamble = Object.fromEntries(Object.entries(files).map(([name, source]) => [name, name.endsWith('.js') ? routePreamble + source : source]));
  return writeFiles(makeTempDir('restlayer-routes-'), withPreamble);
}

/** Source of a route answering `{ where }` (plus the params), anonymous unless `secured`. */
export const echoRoute = (verb: string, where: string, extra = '') =>
  `export const ${verb} = route({ summary: '${where}', ${extra} handle: async ({ params, principal }) => new Output({ where: '${where}', params, user: principal?.userName ?? 'anonymous' }) });\n`;
