import type { ServiceSpec } from '../spec.js';
import { type FileContext, filterableFields, header, importLine, lines, lookupFields, lowerHuman, optionalFields } from './code.js';
import { jsonName } from './test-data.js';
import { crudTests } from './test-crud.js';
import { listTests } from './test-list.js';
import type { TestContext } from './test-context.js';

/** A property name no field has, for the unknown-property checks. */
function unknownName(spec: ServiceSpec): string {
  const taken = new Set(spec.fields.map((f) => f.name.toLowerCase()));
  let name = 'notAField';
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `notAField${i}`;
  return name;
}

/** test/<name>/<name>.test.ts: the service over HTTP against a real server, on whichever store the run uses. */
export function testFile(spec: ServiceSpec, at: FileContext): string {
  const { kebab, id, pascal } = spec;
  const lookups = lookupFields(spec);
  const optional = optionalFields(spec);
  const filterable = filterableFields(spec);
  const [first] = spec.fields;
  const args = lookups.length ? ', ids' : '';
  const data = (n: number | string) => `rowData(${n}${args})`;
  const { child } = spec;
  const extras = child ? `, ${[`${child.plural}: []`, ...child.totals.map((t) => `${t.name}: 0`)].join(', ')}` : '';
  const context: TestContext = { data, patchOf: (n) => `{ ${first.name}: ${data(n)}.${first.name} }`, unknown: unknownName(spec), args, extras };
  const json = jsonName(spec);
  const item = `Required<${json}> & { ${id}: number }`;
  const hasRanges = filterable.some((f) => f.type === 'integer' || f.type === 'decimal' || f.type === 'money' || f.type === 'date');

  return lines(
    header(spec).trimEnd(),
    "import { expect } from 'chai';",
    importLine(['type Envelope', 'type TestServer', 'expectError', 'expectErrors', 'expectOk', 'proxyDrift', 'qs', 'describeStores', 'startTestServer'], 'restlayer/testing'),
    `import { application } from '${at.modules}';`,
    `import { ${pascal}Proxy } from '${at.service(`${kebab}-proxy`)}';`,
    `import { driftProxy } from './${kebab}.drift.js';`,
    importLine([
      lookups.length > 0 && 'type LookupIds', `type ${json}`, lookups.length > 0 && 'lookupIds', optional.length > 0 && 'requiredData', 'rowData',
    ], `./${kebab}-data.js`),
    '',
    `const path = '/${kebab}';`,
    "const mergePatch = { 'Content-Type': 'application/merge-patch+json' };",
    '/** An id no record has: the largest the id column holds. */',
    'const unknownId = 2_147_483_647;',
    '',
    `type Item = ${item};`,
    '',
    '/** An entry of a record\'s history, as `GET …/history` answers it. */',
    'type HistoryEntry = { at: string; user: string; operation: string; changes: { field: string; old?: unknown; new?: unknown }[] };',
    '',
    '/** `items` in the order the server lists them: by `field`, then by id in the same direction. */',
    `function sorted(items: Item[], field: keyof Item, direction: 'Ascending' | 'Descending'): Item[] {`,
    "  const sign = direction === 'Ascending' ? 1 : -1;",
    `  return [...items].sort((a, b) => sign * (compare(a[field], b[field]) || a.${id} - b.${id}));`,
    '}',
    '',
    'type Value = string | number | boolean | undefined;',
    '',
    '/** Text (dates are ISO 8601 text) compares by its characters, numbers and booleans by value. */',
    'function compare(a: Value, b: Value): number {',
    "  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;",
    '  return Number(a) - Number(b);',
    '}',
    ...(hasRanges
      ? [
        '',
        '/** Whether `value` lies in [from, to]; without `to`, in [from, ∞). */',
        'function between(value: Value, from: Value, to: Value): boolean {',
        '  return compare(value, from) >= 0 && (to === undefined || compare(value, to) <= 0);',
        '}',
      ]
      : []),
    ...(filterable.some((f) => f.type === 'text')
      ? [
        '',
        '/** CN: the text holds the needle, ignoring case. */',
        'const contains = (text: string, needle: string) => text.toLowerCase().includes(needle.toLowerCase());',
      ]
      : []),
    '',
    `describeStores('${lowerHuman(spec)} service', function () {`,
    '  // Each suite starts a real server on a store of its own (a PostgreSQL database takes seconds on a busy machine).',
    '  this.timeout(120_000);',
    crudTests(spec, context),
    '',
    listTests(spec, context),
    '',
    "  it('the proxy sends what the routes take (no drift between client and server)', async () => {",
    `    expect(await proxyDrift(application, ${pascal}Proxy, driftProxy)).to.deep.equal([]);`,
    '  });',
    '});',
    '',
  );
}
