import type { ServiceSpec } from '../spec.js';
import { childModels } from './child-models.js';
import {
  criterionOf, filterableFields, header, importLine, lines, lookupFields, lowerHuman, optionalFields, resultStructOf, sortableFields, structOf,
} from './code.js';

const aOrAn = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** services/<name>/<name>-models.ts: the wire models, the list criteria and the bodies of POST, PUT and PATCH. */
export function modelsFile(spec: ServiceSpec): string {
  const { pascal, camel, id, idParam } = spec;
  const { child } = spec;
  const types = new Set([...spec.fields, ...(child?.fields ?? [])].map((f) => f.type));
  const filterable = filterableFields(spec);
  const sortable = [id, ...sortableFields(spec).map((f) => f.name)];
  const lookupNote = (name: string) => {
    const f = lookupFields(spec).find((l) => l.name === name);
    return f ? `  /** A \`${f.lookup}\` id: the service accepts only an active entry of that lookup table. */\n` : '';
  };
  return lines(
    header(spec).trimEnd(),
    importLine([
      'AuditEntryModel', 'type AuditEntry', 'type Criteria', 'type HistoryPage', 'type Infer', 'type PatchOf', child && 'type QuerySchema', child && 'array', 'defineCriteria', filterable.length > 0 && 'criterion', 'patchModel',
      'INT32', 'integer', 'maybe', 'model', 'optional', types.has('text') && 'text', types.has('decimal') && 'decimal', types.has('money') && 'money',
      'date', types.has('boolean') && 'boolean', child && 'modelQuery',
    ], 'restlayer'),
    '',
    '/** Ids and revisions are SQL `integer` columns: a larger number is refused here, not by the store (PostgreSQL). */',
    'const id = () => integer({ min: 1, max: INT32.max });',
    '',
    'const listFields = {',
    `  ${id}: id(),`,
    ...spec.fields.map((f) => `  ${f.name}: ${resultStructOf(f)},`),
    '};',
    'const revision = { revisionNumber: id(), modifiedDate: date() };',
    child && childModels(spec, child),
    '',
    '/**',
    ` * An item of the ${lowerHuman(spec)} list (\`${pascal}_ReadListOutput\`). Optional properties are absent, never null, when the`,
    ' * record has no such value: the wire carries no nulls, so server and client see the same object. The structs of the',
    ' * results describe the answers in the OpenAPI document; the types are inferred from them so the two cannot part.',
    ' */',
    `export const ${pascal}ListItem = model(listFields);`,
    `export type ${pascal}_ReadListOutput = Infer<typeof ${pascal}ListItem>;`,
    '',
    `/** One ${lowerHuman(spec)} (\`${pascal}_ReadOutput\`). */`,
    child
      ? lines(
        `export const ${pascal}Read = model({`,
        '  ...listFields,',
        ...child.totals.map((t) => `  /** The sum of the ${child.plural}' ${t.of.name}, kept with every write of them. */\n  ${t.name}: money(),`),
        `  ${child.plural}: array(${child.pascal}Read),`,
        '  ...revision,',
        '});',
      )
      : `export const ${pascal}Read = model({ ...listFields, ...revision });`,
    `export type ${pascal}_ReadOutput = Infer<typeof ${pascal}Read>;`,
    '',
    `export const ${pascal}UpdateResult = model(revision);`,
    `export type ${pascal}_UpdateOutput = Infer<typeof ${pascal}UpdateResult>;`,
    '',
    `export const ${pascal}CreateResult = model({ ${id}: id(), ...revision });`,
    `export type ${pascal}_CreateOutput = Infer<typeof ${pascal}CreateResult>;`,
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
    child
      ? `export const ${pascal}CreateData = model({ ...fields, ${child.plural}: optional(array(${child.pascal}ItemData)) });`
      : `export const ${pascal}CreateData = model(fields);`,
    `export type ${pascal}_CreateInput_Data = Infer<typeof ${pascal}CreateData>;`,
    '',
    `/** The route parameter naming one ${lowerHuman(spec)}. */`,
    `export const ${pascal}Key = model({ ${idParam}: id() });`,
    '',
    `/** One entry of ${aOrAn(lowerHuman(spec))}'s history (\`GET …/history\`), newest first: the layer's audit entry. */`,
    `export const ${pascal}HistoryEntry = AuditEntryModel;`,
    `export type ${pascal}_HistoryOutput = AuditEntry;`,
    '/** The page of a history: `skip`, `take`. */',
    `export type ${pascal}_HistoryInput = HistoryPage;`,
    '',
  );
}
