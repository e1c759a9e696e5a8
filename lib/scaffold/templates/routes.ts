import type { ChildSpec, FieldSpec, ServiceSpec } from '../spec.js';
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

/** The bytes one field's value may take as JSON: text at up to 3 UTF-8 bytes a character (no max: 1,000 of them). */
function valueBytes(field: FieldSpec): number {
  if (field.type === 'text') return 2 + 3 * (field.max ?? 1_000);
  return field.type === 'date' ? 32 : 24;
}

/**
 * The most bytes one child may take in the create's body, written out with indentation: each field's name and value,
 * and the punctuation around them, rounded up to 64. The create's body limit is its record's plus Documents:MaxLines
 * of these (restlayer's documentBody).
 */
export function childBytes(child: ChildSpec): number {
  const bytes = 16 + child.fields.reduce((sum, f) => sum + f.name.length + 12 + valueBytes(f), 0);
  return Math.ceil(bytes / 64) * 64;
}

/** routes/<name>/index.ts: the list and create. */
export function listRouteFile(spec: ServiceSpec, at: FileContext): string {
  const { pascal, camel, kebab, id, child } = spec;
  return lines(
    header(spec).trimEnd(),
    `import { array${child ? ', documentBody' : ''} } from 'restlayer';`,
    `import { route } from '${at.modules}';`,
    `import { ${[`${pascal}CreateData`, `${pascal}CreateResult`, `${pascal}ListItem`, `${camel}Criteria`, child && `${child.pascal}ItemData`].filter(Boolean).sort().join(', ')} } from '${at.service(`${kebab}-models`)}';`,
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
    child && `  // The ${lowerHuman(spec)} with up to Documents:MaxLines ${child.plural} of up to ${childBytes(child)} bytes each; more is a 413 before it is parsed.`,
    child && `  maxBody: documentBody(${child.pascal}ItemData, ${childBytes(child)}),`,
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
