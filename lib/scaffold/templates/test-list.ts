import { type FieldSpec, type ServiceSpec, fullTextFields } from '../spec.js';
import { filterableFields, lines, lookupFields, sortableFields } from './code.js';
import type { TestContext } from './test-context.js';

/**
 * The list checks of one filterable field: [query, which rows match], computed from the rows themselves so they
 * hold whatever values the data set has.
 */
function filterChecks(field: FieldSpec, fullText: boolean): string[] {
  const name = field.name;
  const value = (row: number) => `rows[${row}].${name}`;
  switch (field.type) {
    case 'text': return [
      `      [qs({ ${name}: ${value(5)} }), (r) => r.${name} === ${value(5)}],`,
      `      [qs({ ${name}: ${value(1)}.slice(-1), '${name}.operator': 'CN' }), (r) => contains(r.${name}, ${value(1)}.slice(-1))],`,
      // Three characters, the fewest a trigram index finds (fewer read the rows).
      fullText && `      [qs({ ${name}: ${value(1)}.slice(-3), '${name}.operator': 'CN' }), (r) => contains(r.${name}, ${value(1)}.slice(-3))],`,
    ].filter((check): check is string => Boolean(check));
    case 'integer': case 'decimal': case 'money': case 'date': return [
      // A money value is found by EQ exactly (a stored decimal, never a binary fraction).
      field.type === 'money' && `      [qs({ ${name}: ${value(4)} }), (r) => r.${name} === ${value(4)}],`,
      `      [qs({ ${name}: [${value(3)}, ${value(8)}] }), (r) => between(r.${name}, ${value(3)}, ${value(8)})],`,
      `      [qs({ ${name}: ${value(6)}, '${name}.operator': 'GT' }), (r) => between(r.${name}, ${value(6)}, undefined) && r.${name} !== ${value(6)}],`,
    ].filter((check): check is string => Boolean(check));
    case 'boolean': return [
      `      [qs({ ${name}: true }), (r) => r.${name} === true],`,
      `      [qs({ ${name}: false }), (r) => r.${name} === false],`,
    ];
    case 'lookup': return [
      `      [qs({ ${name}: [${value(0)}, ${value(1)}] }), (r) => r.${name} === ${value(0)} || r.${name} === ${value(1)}],`,
    ];
  }
}

/** The generated tests of the list, against a server of its own holding only the rows they create. */
export function listTests(spec: ServiceSpec, { data, unknown }: TestContext): string {
  const { id } = spec;
  const lookups = lookupFields(spec);
  const filterable = filterableFields(spec);
  const fullText = new Set(fullTextFields(spec));
  return lines(
    "  describe('list: criteria, sorting and paging', () => {",
    '    let server: TestServer;',
    `    const rows: Item[] = [];`,
    '    before(async () => {',
    '      server = await startTestServer({ application, sampleData: false });',
    lookups.length > 0 && '      const ids = await lookupIds(server);',
    '      for (let n = 0; n < 12; n++) {',
    `        const data = ${data('n')};`,
    "        const reply = await server.call(path, { method: 'POST', body: data });",
    '        expectOk(reply, 201);',
    `        rows.push({ ${id}: reply.body.result.${id}, ...data });`,
    '      }',
    '    });',
    '    after(() => server?.stop());',
    '',
    '    async function list(query: string): Promise<Envelope> {',
    '      const reply = await server.call(`${path}?${query}`);',
    '      expectOk(reply);',
    '      return reply.body;',
    '    }',
    `    const idsOf = (items: Item[]) => items.map((r) => r.${id});`,
    '',
    "    it('lists every record by id, each item holding its fields', async () => {",
    "      expect((await list('')).result).to.deep.equal(rows);",
    '    });',
    '',
    "    it('pages with skip and take; getTotalCount counts every match', async () => {",
    "      expect((await list('skip=3&take=4')).result).to.deep.equal(rows.slice(3, 7));",
    "      expect(await list('take=2&getTotalCount=true')).to.deep.equal({ result: rows.slice(0, 2), messages: [], totalCount: rows.length });",
    "      expect(await list('take=0&getTotalCount=true')).to.deep.equal({ result: [], messages: [], totalCount: rows.length });",
    "      expect((await list('skip=12')).result).to.deep.equal([]);",
    '    });',
    '',
    "    it('sorts by each sortable field, both ways, ties broken by id in the same direction', async () => {",
    `      for (const field of [${[id, ...sortableFields(spec).map((f) => f.name)].map((n) => `'${n}'`).join(', ')}] as const) {`,
    "        for (const direction of ['Ascending', 'Descending'] as const) {",
    "          const { result } = await list(qs({ 'sort[0].fieldName': field, 'sort[0].sortDirection': direction }));",
    '          expect(idsOf(result), `${field} ${direction}`).to.deep.equal(idsOf(sorted(rows, field, direction)));',
    '        }',
    '      }',
    '    });',
    '',
    filterable.length > 0 && lines(
      "    it('filters on each filterable field as the criteria say, answering exactly the matching rows', async () => {",
      '      const checks: [string, (r: Item) => boolean][] = [',
      ...filterable.flatMap((f) => filterChecks(f, fullText.has(f))),
      '      ];',
      '      for (const [query, matches] of checks) {',
      '        const expected = rows.filter(matches);',
      '        expect(expected, `${query} matches some rows`).to.not.be.empty;',
      '        expect(idsOf((await list(query)).result), query).to.deep.equal(idsOf(expected));',
      // With the count, a page of few matches of a CN reads the trigram index (lib/storage/list-query.ts).
      '        const counted = await list(`${query}&getTotalCount=true`);',
      '        expect(idsOf(counted.result), `${query}, counted`).to.deep.equal(idsOf(expected));',
      '        expect(counted.totalCount, query).to.equal(expected.length);',
      '      }',
      '    });',
      '',
    ),
    "    it('refuses an unknown criteria field and an unknown sort field, each on its property', async () => {",
    `      expectError(await server.call(\`\${path}?${unknown}=1\`), 400, 'Input_UnknownProperty', '${unknown}');`,
    `      expectError(await server.call(\`\${path}?\${qs({ 'sort[0].fieldName': '${unknown}' })}\`), 400, 'Input_InvalidValue', 'sort[0].fieldName');`,
    '    });',
    '  });',
  );;
}
