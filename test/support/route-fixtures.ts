import { makeTempDir, writeFiles } from './temp.js';

/**
 * What a route file written at test time starts with: `route`, `Output` and the input fields, from the layer's public
 * entry (restlayer, as this project resolves its own name: the build), named by its URL since the file lives elsewhere.
 */
export const routePreamble = [
  `import { Output, integer, model, route, text } from '${import.meta.resolve('restlayer')}';`,
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
