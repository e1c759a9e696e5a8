import type { ServiceSpec } from '../spec.js';
import {
  ROOT, criterionOf, filterableFields, header, importLine, lines, lookupFields, lowerHuman, optionalFields, sortableFields, structOf, tsType,
} from './code.js';

/** services/<name>/<name>-models.ts: the wire models, the list criteria and the bodies of POST, PUT and PATCH. */
export function modelsFile(spec: ServiceSpec): string {
  const { pascal, camel, id, idParam } = spec;
  const types = new Set(spec.fields.map((f) => f.type));
  const filterable = filterableFields(spec);
  const sortable = [id, ...sortableFields(spec).map((f) => f.name)];
  const fieldLines = spec.fields.map((f) => `  ${f.name}${f.required ? '' : '?'}: ${tsType(f)};`);
  const lookupNote = (name: string) => {
    const f = lookupFields(spec).find((l) => l.name === name);
    return f ? `  /** A \`${f.lookup}\` id: the service accepts only an active entry of that lookup table. */\n` : '';
  };
  return lines(
    header(spec).trimEnd(),
    "import type { Infer } from 'superstruct';",
    importLine(['type Criteria', 'defineCriteria', filterable.length > 0 && 'field'], `${ROOT}lib/validation/criteria.js`),
    importLine(['type PatchOf', 'patchModel'], `${ROOT}lib/validation/merge-patch.js`),
    importLine([
      'INT32', 'integer', 'maybe', 'model', types.has('text') && 'text', types.has('decimal') && 'decimal',
      types.has('date') && 'date', types.has('boolean') && 'boolean',
    ], `${ROOT}lib/validation/fields.js`),
    '',
    '/**',
    ` * An item of the ${lowerHuman(spec)} list (\`${pascal}_ReadListOutput\`). Optional properties are absent, never null, when the`,
    ' * record has no such value: the wire carries no nulls, so server and client see the same object.',
    ' */',
    `export interface ${pascal}_ReadListOutput {`,
    `  ${id}: number;`,
    ...fieldLines,
    '}',
    '',
    `/** One ${lowerHuman(spec)} (\`${pascal}_ReadOutput\`). */`,
    `export interface ${pascal}_ReadOutput extends ${pascal}_ReadListOutput {`,
    '  revisionNumber: number;',
    '  modifiedDate: Date;',
    '}',
    '',
    `export interface ${pascal}_UpdateOutput {`,
    '  revisionNumber: number;',
    '  modifiedDate: Date;',
    '}',
    '',
    `export interface ${pascal}_CreateOutput extends ${pascal}_UpdateOutput {`,
    `  ${id}: number;`,
    '}',
    '',
    `/** The query-string criteria of the list (\`${pascal}_ReadListInput_Criteria\`): filters, then the fields it sorts by. */`,
    `export const ${camel}Criteria = defineCriteria(`,
    filterable.length ? '  {' : '  {},',
    ...filterable.map((f) => `    ${f.name}: ${criterionOf(f)},`),
    filterable.length > 0 && '  },',
    `  [${sortable.map((n) => `'${n}'`).join(', ')}] as const,`,
    ');',
    '',
    `type CriteriaFields = typeof ${camel}Criteria.fields;`,
    filterable.length > 0 && `export type ${pascal}FilterField = keyof CriteriaFields;`,
    `export type ${pascal}SortField = (typeof ${camel}Criteria.sortable)[number];`,
    `export type ${pascal}_ReadListInput_Criteria = Criteria<CriteriaFields, ${pascal}SortField>;`,
    '',
    '/** Ids and revisions are SQL `integer` columns: a larger number is refused here, not by the store (PostgreSQL). */',
    'const id = () => integer({ min: 1, max: INT32.max });',
    '',
    `/** The fields of create and update.${optionalFields(spec).length ? ' An optional field takes null or no value for "none".' : ''} */`,
    'const fields = {',
    ...spec.fields.map((f) => `${lookupNote(f.name)}  ${f.name}: ${structOf(f)},`),
    '};',
    '',
    `/** The body of PUT (\`${pascal}_UpdateInput_Data\`). Absent optional fields are cleared: PUT replaces. */`,
    `export const ${pascal}UpdateData = model({ ...fields, revisionNumber: maybe(id()) });`,
    `export type ${pascal}_UpdateInput_Data = Infer<typeof ${pascal}UpdateData>;`,
    '',
    '/** The body of PATCH (`application/merge-patch+json`): only the fields named change; null clears an optional one. */',
    `export const ${pascal}PatchData = patchModel(${pascal}UpdateData);`,
    `export type ${pascal}_PatchInput_Data = PatchOf<${pascal}_UpdateInput_Data>;`,
    '',
    `/** The body of POST (\`${pascal}_CreateInput_Data\`). */`,
    `export const ${pascal}CreateData = model(fields);`,
    `export type ${pascal}_CreateInput_Data = Infer<typeof ${pascal}CreateData>;`,
    '',
    `/** The route parameter naming one ${lowerHuman(spec)}. */`,
    `export const ${pascal}Key = model({ ${idParam}: id() });`,
    '',
  );
}
