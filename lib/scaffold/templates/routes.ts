import type { ServiceSpec } from '../spec.js';
import { routeScopesName } from './scopes.js';
import { type FileContext, header, lines, lowerHuman } from './code.js';

/** `an invoice`, `a purchase order`: the indefinite article by the first letter (a vowel's sound, as nearly always). */
const aOrAn = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/**
 * The permission a verb of the record's routes needs (`<service>.<operation>`): GET reads, POST creates, PUT and
 * PATCH update (a child's writes too: they change the record), DELETE deletes. The layer's default roles grant them
 * by pattern (Administrator `*.*`, Viewer `*.read`); a team grants them to its own roles by configuration.
 */
export function permissionOf(spec: ServiceSpec, verb: string, child = false): string {
  const operation = verb === 'GET' ? 'read' : child || verb === 'PUT' || verb === 'PATCH' ? 'update' : verb === 'POST' ? 'create' : 'delete';
  return `${spec.kebab}.${operation}`;
}

/** routes/<name>/index.ts: the list and create. */
export function listRouteFile(spec: ServiceSpec, at: FileContext): string {
  const { pascal, camel, kebab, id } = spec;
  return lines(
    header(spec).trimEnd(),
    "import { array } from 'restlayer';",
    `import { route } from '${at.modules}';`,
    `import { ${pascal}CreateData, ${pascal}CreateResult, ${pascal}ListItem, ${camel}Criteria } from '${at.service(`${kebab}-models`)}';`,
    `import { ${routeScopesName(spec)} } from '${at.service(`${kebab}-scopes`)}';`,
    '',
    'export const GET = route({',
    `  summary: 'List ${lowerHuman(spec)} records matching the criteria.',`,
    `  permission: '${kebab}.read',`,
    `  ...${routeScopesName(spec)},`,
    `  operation: 'I${pascal}Service.readList',`,
    `  query: ${camel}Criteria,`,
    `  result: array(${pascal}ListItem),`,
    `  handle: ({ query, services }) => services.${camel}.readList(query),`,
    '});',
    '',
    'export const POST = route({',
    `  summary: 'Create ${aOrAn(lowerHuman(spec))}.',`,
    `  permission: '${kebab}.create',`,
    `  ...${routeScopesName(spec)},`,
    `  operation: 'I${pascal}Service.create',`,
    `  body: ${pascal}CreateData,`,
    `  result: ${pascal}CreateResult,`,
    '  async handle({ body, services, created }) {',
    `    const output = await services.${camel}.create(body);`,
    `    if (output.result) created(\`/${kebab}/\${output.result.${id}}\`);`,
    '    return output;',
    '  },',
    '});',
    '',
  );
}

/** routes/<name>/[_<name>Id].ts: one record. */
export function itemRouteFile(spec: ServiceSpec, at: FileContext): string {
  const { pascal, camel, kebab, idParam } = spec;
  const human = lowerHuman(spec);
  const verb = (name: string, summary: string, operation: string, body: string | false, result: string | false, answers: string, call: string) => lines(
    `export const ${name} = route({`,
    `  summary: '${summary}',`,
    `  permission: '${permissionOf(spec, name)}',`,
    `  ...${routeScopesName(spec)},`,
    `  operation: 'I${pascal}Service.${operation}',`,
    `  params: ${pascal}Key,`,
    body && `  body: ${body},`,
    result && `  result: ${result},`,
    `  answers: [${answers}],`,
    `  handle: ({ params, ${body ? 'body, ' : ''}services }) => services.${camel}.${call},`,
    '});',
  );
  return lines(
    header(spec).trimEnd(),
    `import { route } from '${at.modules}';`,
    `import { ${pascal}Key, ${pascal}PatchData, ${pascal}Read, ${pascal}UpdateData, ${pascal}UpdateResult } from '${at.service(`${kebab}-models`)}';`,
    `import { ${routeScopesName(spec)} } from '${at.service(`${kebab}-scopes`)}';`,
    '',
    verb('GET', `Read one ${human}.`, 'read', false, `${pascal}Read`, '404', `read(params.${idParam})`),
    '',
    verb('PUT', `Update ${aOrAn(human)}; a stale revisionNumber is a 409.`, 'update', `${pascal}UpdateData`, `${pascal}UpdateResult`, '404, 409', `update(params.${idParam}, body)`),
    '',
    verb('PATCH', 'Change only the fields the body names (JSON merge patch; null clears an optional field); a stale revisionNumber is a 409.',
      'patch', `${pascal}PatchData`, `${pascal}UpdateResult`, '404, 409', `patch(params.${idParam}, body)`),
    '',
    verb('DELETE', `Delete ${aOrAn(human)}.`, 'delete', false, false, '404', `delete(params.${idParam})`),
    '',
  );
}
