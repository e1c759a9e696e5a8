import { upperFirst } from '../names.js';
import type { FieldSpec, ServiceSpec } from '../spec.js';
import { header, jsonType, lines, lookupFields, requiredFields } from './code.js';

/**
 * The expression of row `n`'s value of the field at `index`. Values grow with `n`, and two fields of one type hold
 * different values, so a column written for another field shows in the tests.
 */
function rowValue(field: FieldSpec, index: number, prefix: string): string {
  switch (field.type) {
    case 'text': return `text('${prefix}', n${field.max ? `, ${field.max}` : ''})`;
    case 'integer': return `n * 7 ${index ? `+ ${index * 100 - 20}` : '- 20'}`;
    case 'decimal': return `n * 2.5 + ${index + 0.25}`;
    // Ten-thousandths divided once: the nearest double prints as the exact 4-digit decimal.
    case 'money': return `(n * 250_125 + ${index * 10_001}) / 10_000`;
    case 'date': return `new Date(Date.UTC(2024, ${index % 12}, 1 + n * 3, 9, 30)).toISOString()`;
    case 'boolean': return `n % 3 === ${index % 3}`;
    case 'lookup': return `pick(ids.${field.name}, n${index ? ` + ${index}` : ''})`;
  }
}

/** The fixed start of each text field's values: its initial, with its position when another text field took that. */
function textPrefixes(spec: ServiceSpec): Map<string, string> {
  const prefixes = new Map<string, string>();
  spec.fields.forEach((f, index) => {
    if (f.type !== 'text') return;
    const initial = upperFirst(f.name).charAt(0);
    prefixes.set(f.name, [...prefixes.values()].includes(initial) ? `${initial}${index}` : initial);
  });
  return prefixes;
}

/** The JSON type of the data set's records. */
export const jsonName = (spec: ServiceSpec) => `${spec.pascal}Json`;

/** test/<name>/<name>-data.ts: valid records for the tests, with the lookup ids they need read from the server. */
export function testDataFile(spec: ServiceSpec): string {
  const lookups = lookupFields(spec);
  const required = requiredFields(spec);
  const ids = lookups.length ? ', ids: LookupIds' : '';
  const optional = spec.fields.length > required.length;
  const prefixes = textPrefixes(spec);
  const wireNotes = [
    spec.fields.some((f) => f.type === 'date') && 'dates as ISO 8601 text',
    optional && 'optional fields absent when they have no value',
  ].filter((note): note is string => Boolean(note));
  return lines(
    header(spec).trimEnd(),
    lookups.length > 0 && "import { expect } from 'chai';",
    lookups.length > 0 && "import type { TestServer } from 'restlayer/testing';",
    lookups.length > 0 && '',
    `/** A ${spec.human.toLowerCase()} as the wire carries it${wireNotes.length ? `: ${wireNotes.join(', ')}` : ''}. */`,
    `export interface ${jsonName(spec)} {`,
    ...spec.fields.map((f) => `  ${f.name}${f.required ? '' : '?'}: ${jsonType(f)};`),
    '}',
    '',
    ...(lookups.length
      ? [
        '/** The ids of a lookup table: those a record may name, and one the table does not have. */',
        'export interface LookupValues {',
        '  active: number[];',
        '  absent: number;',
        '}',
        '',
        '/** The lookup tables the fields reference, as the server has them. */',
        'export interface LookupIds {',
        ...lookups.map((f) => `  ${f.name}: LookupValues;`),
        '}',
        '',
        'export async function lookupIds(server: TestServer): Promise<LookupIds> {',
        '  return {',
        ...lookups.map((f) => `    ${f.name}: await lookupValues(server, '${f.lookup}'),`),
        '  };',
        '}',
        '',
        'async function lookupValues(server: TestServer, type: string): Promise<LookupValues> {',
        '  const reply = await server.call(`/lookup-table/${encodeURIComponent(type)}`);',
        '  expect(reply.status, `lookup table ${type}: ${reply.text}`).to.equal(200);',
        '  const entries = (reply.body.result.data as { id: unknown; isActive: boolean }[]).filter((e): e is { id: number; isActive: boolean } => typeof e.id === \'number\');',
        '  const active = entries.filter((e) => e.isActive).map((e) => e.id);',
        '  expect(active, `lookup table ${type} has no active entry with an integer id`).to.not.be.empty;',
        '  return { active, absent: Math.max(0, ...entries.map((e) => e.id)) + 1 };',
        '}',
        '',
        '/** Row `n`\'s choice among the active ids. */',
        'const pick = (values: LookupValues, n: number) => values.active[n % values.active.length];',
        '',
      ]
      : []),
    '/** Text that sorts alike under every collation: a fixed prefix and zero-padded digits, cut to `max` from the left. */',
    "const text = (prefix: string, n: number, max = Infinity) => `${prefix}${String(n).padStart(4, '0')}`.slice(-max);",
    '',
    '/** Row `n` of a data set: every field set, each value within its limits and growing with `n`. */',
    `export function rowData(n: number${ids}): Required<${jsonName(spec)}> {`,
    '  return {',
    ...spec.fields.map((f, index) => `    ${f.name}: ${rowValue(f, index, prefixes.get(f.name) ?? '')},`),
    '  };',
    '}',
    ...(optional
      ? [
        '',
        '/** Row `n` with the required fields only. */',
        `export function requiredData(n: number${ids}): ${jsonName(spec)} {`,
        ...(required.length
          ? [
            // Property reads, not a destructuring: a field may be named like a reserved word (`class`, `default`).
            `  const row = rowData(n${lookups.length ? ', ids' : ''});`,
            `  return { ${required.map((f) => `${f.name}: row.${f.name}`).join(', ')} };`,
          ]
          : ['  return {};']),
        '}',
      ]
      : []),
    '',
  );
}
