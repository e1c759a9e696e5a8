import type { ServiceSpec } from '../spec.js';
import { type FileContext, header, importLine, lines, lowerHuman } from './code.js';
import { routeScopesName } from './scopes.js';

/** routes/<name>/[_<name>Id]/history.ts: the record's audit history, newest first. */
export function historyRouteFile(spec: ServiceSpec, at: FileContext): string {
  const { pascal, camel, kebab, idParam } = spec;
  const human = lowerHuman(spec);
  return lines(
    header(spec).trimEnd(),
    "import { array, historyQuery } from 'restlayer';",
    `import { route } from '${at.modules}';`,
    importLine([`${pascal}HistoryEntry`, `${pascal}Key`], at.service(`${kebab}-models`)),
    `import { ${routeScopesName(spec)} } from '${at.service(`${kebab}-scopes`)}';`,
    '',
    'export const GET = route({',
    `  summary: 'The ${human}\\'s change history, newest first: when, who, the operation and each changed field\\'s old and new value; paged by skip and take. A deleted ${human}\\'s history is readable with ${kebab}.delete.',`,
    `  permission: '${kebab}.read',`,
    `  ...${routeScopesName(spec)},`,
    `  operation: 'I${pascal}Service.history',`,
    `  params: ${pascal}Key,`,
    '  query: historyQuery,',
    `  result: array(${pascal}HistoryEntry),`,
    '  answers: [404],',
    `  handle: ({ params, query, services }) => services.${camel}.history(params.${idParam}, query),`,
    '});',
    '',
  );
}
