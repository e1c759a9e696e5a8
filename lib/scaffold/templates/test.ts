import type { FieldSpec, ServiceSpec } from '../spec.js';
import {
  filterableFields, header, importLine, lines, lookupCode, lookupFields, lowerHuman, optionalFields, requiredFields, sortableFields, textFields,
} from './code.js';
import { jsonName } from './test-data.js';

/** A value of the wrong type for a field: each is refused with Input_InvalidType. */
function wrongValue(field: FieldSpec): string {
  switch (field.type) {
    case 'text': return '42';
    case 'integer': case 'lookup': return '1.5';
    case 'decimal': return "'cheap'";
    case 'date': return "'soon'";
    case 'boolean': return "'maybe'";
  }
}

/** A property name no field has, for the unknown-property checks. */
function unknownName(spec: ServiceSpec): string {
  const taken = new Set(spec.fields.map((f) => f.name.toLowerCase()));
  let name = 'notAField';
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `notAField${i}`;
  return name;
}

/**
 * The list checks of one filterable field: [query, which rows match], computed from the rows themselves so they
 * hold whatever values the data set has.
 */
function filterChecks(field: FieldSpec): string[] {
  const name = field.name;
  const value = (row: number) => `rows[${row}].${name}`;
  switch (field.type) {
    case 'text': return [
      `      [qs({ ${name}: ${value(5)} }), (r) => r.${name} === ${value(5)}],`,
      `      [qs({ ${name}: ${value(1)}.slice(-1), '${name}.operator': 'CN' }), (r) => contains(r.${name}, ${value(1)}.slice(-1))],`,
    ];
    case 'integer': case 'decimal': case 'date': return [
      `      [qs({ ${name}: [${value(3)}, ${value(8)}] }), (r) => between(r.${name}, ${value(3)}, ${value(8)})],`,
      `      [qs({ ${name}: ${value(6)}, '${name}.operator': 'GT' }), (r) => between(r.${name}, ${value(6)}, undefined) && r.${name} !== ${value(6)}],`,
    ];
    case 'boolean': return [
      `      [qs({ ${name}: true }), (r) => r.${name} === true],`,
      `      [qs({ ${name}: false }), (r) => r.${name} === false],`,
    ];
    case 'lookup': return [
      `      [qs({ ${name}: [${value(0)}, ${value(1)}] }), (r) => r.${name} === ${value(0)} || r.${name} === ${value(1)}],`,
    ];
  }
}

/** test/<name>/<name>.test.ts: the service over HTTP against a real server, on whichever store the run uses. */
export function testFile(spec: ServiceSpec): string {
  const { kebab, id, idParam } = spec;
  const human = lowerHuman(spec);
  const lookups = lookupFields(spec);
  const required = requiredFields(spec);
  const optional = optionalFields(spec);
  const filterable = filterableFields(spec);
  const texts = textFields(spec);
  const limited = texts.filter((f) => f.max);
  const requiredTexts = texts.filter((f) => f.required);
  const [first] = spec.fields;
  const unknown = unknownName(spec);
  const args = lookups.length ? ', ids' : '';
  const data = (n: number | string) => `rowData(${n}${args})`;
  const patchOf = (n: number | string) => `{ ${first.name}: ${data(n)}.${first.name} }`;
  const json = jsonName(spec);
  const item = `Required<${json}> & { ${id}: number }`;
  const hasRanges = filterable.some((f) => f.type === 'integer' || f.type === 'decimal' || f.type === 'date');

  const crud = lines(
    `  describe('create, read, update, patch and delete', () => {`,
    '    let server: TestServer;',
    lookups.length > 0 && '    let ids: LookupIds;',
    '    before(async () => {',
    '      server = await startTestServer({ sampleData: false });',
    lookups.length > 0 && '      ids = await lookupIds(server);',
    '    });',
    '    after(() => server.stop());',
    '',
    '    async function create(data: object): Promise<number> {',
    "      const reply = await server.call(path, { method: 'POST', body: data });",
    '      expectOk(reply, 201);',
    `      return reply.body.result.${id} as number;`,
    '    }',
    '',
    '    async function read(id: number): Promise<Record<string, unknown>> {',
    '      const reply = await server.call(`${path}/${id}`);',
    '      expectOk(reply);',
    '      return reply.body.result as Record<string, unknown>;',
    '    }',
    '',
    '    async function count(): Promise<number> {',
    '      const reply = await server.call(`${path}?take=0&getTotalCount=true`);',
    '      expectOk(reply);',
    '      return reply.body.totalCount as number;',
    '    }',
    '',
    '    const put = (id: number, body: object) => server.call(`${path}/${id}`, { method: \'PUT\', body });',
    '    const patch = (id: number, body: object) => server.call(`${path}/${id}`, { method: \'PATCH\', body, headers: mergePatch });',
    '',
    `    it('POST answers 201 with a Location that GETs the new ${human}, holding every field sent', async () => {`,
    `      const data = ${data(1)};`,
    "      const reply = await server.call(path, { method: 'POST', body: data });",
    '      const { result } = expectOk(reply, 201);',
    `      expect(Object.keys(result)).to.have.members(['${id}', 'revisionNumber', 'modifiedDate']);`,
    '      expect(result.revisionNumber).to.equal(1);',
    `      expect(reply.headers.get('Location')).to.equal(\`\${path}/\${result.${id}}\`);`,
    "      const read = await server.call(reply.headers.get('Location')!);",
    `      expect(expectOk(read).result).to.deep.equal({ ${id}: result.${id}, ...data, revisionNumber: 1, modifiedDate: result.modifiedDate });`,
    '    });',
    '',
    optional.length > 0 && lines(
      "    it('POST with the required fields only: the others are absent from the read, never null', async () => {",
      `      const data = requiredData(2${args});`,
      '      const id = await create(data);',
      '      const record = await read(id);',
      `      expect(record).to.deep.equal({ ${id}: id, ...data, revisionNumber: 1, modifiedDate: record.modifiedDate });`,
      '    });',
      '',
    ),
    "    it('reads property names case-insensitively', async () => {",
    `      const data = ${data(3)};`,
    '      const id = await create(Object.fromEntries(Object.entries(data).map(([name, value]) => [name.toUpperCase(), value])));',
    '      expect(await read(id)).to.include(data);',
    '    });',
    '',
    "    it('PUT replaces every field and answers the new revisionNumber and modifiedDate', async () => {",
    `      const id = await create(${data(4)});`,
    `      const data = ${data(5)};`,
    '      const { result } = expectOk(await put(id, { ...data, revisionNumber: 1 }));',
    "      expect(Object.keys(result)).to.have.members(['revisionNumber', 'modifiedDate']);",
    '      expect(result.revisionNumber).to.equal(2);',
    `      expect(await read(id)).to.deep.equal({ ${id}: id, ...data, ...result });`,
    '    });',
    '',
    optional.length > 0 && lines(
      "    it('PUT clears the optional fields it leaves out (PUT replaces); without revisionNumber it checks no revision', async () => {",
      `      const id = await create(${data(6)});`,
      `      const data = requiredData(7${args});`,
      '      const { result } = expectOk(await put(id, data));',
      `      expect(await read(id)).to.deep.equal({ ${id}: id, ...data, ...result });`,
      '    });',
      '',
    ),
    "    it('a stale revisionNumber is a 409 Entity_Concurrency for PUT and PATCH, and nothing is written', async () => {",
    `      const id = await create(${data(8)});`,
    `      expectOk(await put(id, { ...${data(9)}, revisionNumber: 1 }));`,
    '      const current = await read(id);',
    `      const m = expectError(await put(id, { ...${data(10)}, revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');`,
    "      expect(m.type).to.equal('Concurrency');",
    `      expectError(await patch(id, { ...${patchOf(10)}, revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');`,
    '      expect(await read(id)).to.deep.equal(current);',
    '    });',
    '',
    "    it('concurrent updates at one revision: exactly one wins, the others are 409 and write nothing', async () => {",
    `      const id = await create(${data(11)});`,
    `      const bodies = Array.from({ length: 8 }, (_, i) => ({ ...${data('12 + i')}, revisionNumber: 1 }));`,
    '      const replies = await Promise.all(bodies.map((body) => put(id, body)));',
    '      const won = replies.filter((r) => r.status === 200);',
    "      expect(won, replies.map((r) => r.text).join('\\n')).to.have.length(1);",
    "      for (const r of replies) if (r.status !== 200) expectError(r, 409, 'Entity_Concurrency', 'revisionNumber');",
    '      const { revisionNumber: _, ...winner } = bodies[replies.indexOf(won[0])];',
    `      expect(await read(id)).to.deep.equal({ ${id}: id, ...winner, ...won[0].body.result });`,
    '    });',
    '',
    "    it('PATCH changes only the fields it names, and answers what PUT answers', async () => {",
    `      const id = await create(${data(20)});`,
    '      const before = await read(id);',
    `      const change = ${patchOf(21)};`,
    '      const { result } = expectOk(await patch(id, change));',
    "      expect(Object.keys(result)).to.have.members(['revisionNumber', 'modifiedDate']);",
    '      expect(await read(id)).to.deep.equal({ ...before, ...change, ...result });',
    '    });',
    '',
    optional.length > 0 && lines(
      "    it('PATCH with null clears optional fields; plain application/json is read as a merge patch too', async () => {",
      `      const id = await create(${data(22)});`,
      '      const before = await read(id);',
      `      const cleared = [${optional.map((f) => `'${f.name}'`).join(', ')}];`,
      "      const reply = await server.call(`${path}/${id}`, { method: 'PATCH', body: Object.fromEntries(cleared.map((name) => [name, null])) });",
      '      const { result } = expectOk(reply);',
      '      const expected: Record<string, unknown> = { ...before, ...result };',
      '      for (const name of cleared) delete expected[name];',
      '      expect(await read(id)).to.deep.equal(expected);',
      '    });',
      '',
    ),
    required.length > 0 && lines(
      "    it('PATCH with null on a required field is a 400 Input_Required on it, and nothing is written', async () => {",
      `      const id = await create(${data(23)});`,
      '      const before = await read(id);',
      ...required.map((f) => `      expectError(await patch(id, { ${f.name}: null }), 400, 'Input_Required', '${f.name}');`),
      '      expect(await read(id)).to.deep.equal(before);',
      '    });',
      '',
    ),
    `    it('DELETE answers 200 with an envelope without result; then the ${human} is gone', async () => {`,
    `      const id = await create(${data(24)});`,
    '      const total = await count();',
    "      const reply = await server.call(`${path}/${id}`, { method: 'DELETE' });",
    '      expect(reply.status).to.equal(200);',
    '      expect(reply.body).to.deep.equal({ messages: [] });',
    "      expectError(await server.call(`${path}/${id}`), 404, 'Entity_NotFound');",
    '      expect(await count()).to.equal(total - 1);',
    '    });',
    '',
    "    it('an unknown id is a 404 Entity_NotFound for GET, PUT, PATCH and DELETE', async () => {",
    '      const replies = [',
    '        await server.call(`${path}/${unknownId}`),',
    `        await put(unknownId, ${data(25)}),`,
    `        await patch(unknownId, ${patchOf(25)}),`,
    "        await server.call(`${path}/${unknownId}`, { method: 'DELETE' }),",
    '      ];',
    '      for (const reply of replies) {',
    "        const m = expectError(reply, 404, 'Entity_NotFound');",
    `        expect(m.message).to.equal(\`${spec.human} with id \${unknownId} not found.\`);`,
    "        expect(m.type).to.equal('Data');",
    '      }',
    '    });',
    '',
    "    it('an id that is not a positive integer is a 400 on the route parameter', async () => {",
    `      expectError(await server.call(\`\${path}/abc\`), 400, 'Input_InvalidType', '${idParam}');`,
    `      expectError(await server.call(\`\${path}/0\`), 400, 'Input_OutOfRange', '${idParam}');`,
    '    });',
    '',
    required.length > 0 && lines(
      "    it('POST without the required fields reports each on its property, and creates nothing', async () => {",
      '      const total = await count();',
      `      const messages = expectErrors(await server.call(path, { method: 'POST', body: {} }), 400, [${required.map(() => "'Input_Required'").join(', ')}]);`,
      `      expect(messages.map((m) => m.property)).to.have.members([${required.map((f) => `'${f.name}'`).join(', ')}]);`,
      '      expect(await count()).to.equal(total);',
      '    });',
      '',
    ),
    "    it('a value of the wrong type is reported on its property, every one of them, and nothing is written', async () => {",
    `      const id = await create(${data(26)});`,
    '      const before = await read(id);',
    '      const wrong = {',
    ...spec.fields.map((f) => `        ${f.name}: ${wrongValue(f)},`),
    '      };',
    `      const codes = [${spec.fields.map(() => "'Input_InvalidType'").join(', ')}];`,
    '      for (const reply of [await server.call(path, { method: \'POST\', body: wrong }), await put(id, wrong), await patch(id, wrong)]) {',
    '        const messages = expectErrors(reply, 400, codes);',
    `        expect(messages.map((m) => m.property)).to.have.members([${spec.fields.map((f) => `'${f.name}'`).join(', ')}]);`,
    '      }',
    '      expect(await read(id)).to.deep.equal(before);',
    '    });',
    '',
    "    it('an unknown property is refused on its name', async () => {",
    `      expectError(await server.call(path, { method: 'POST', body: { ...${data(27)}, ${unknown}: 1 } }), 400, 'Input_UnknownProperty', '${unknown}');`,
    '    });',
    '',
    limited.length > 0 && lines(
      `    const limits: [string, number][] = [${limited.map((f) => `['${f.name}', ${f.max}]`).join(', ')}];`,
      '    for (const [name, max] of limits) {',
      "      it(`${name} takes at most ${max} characters, on create and update`, async () => {",
      `        const id = await create({ ...${data(28)}, [name]: 'x'.repeat(max) });`,
      "        expect((await read(id))[name]).to.equal('x'.repeat(max));",
      `        expectError(await server.call(path, { method: 'POST', body: { ...${data(28)}, [name]: 'y'.repeat(max + 1) } }), 400, 'Input_TooLong', name);`,
      `        expectError(await put(id, { ...${data(28)}, [name]: 'z'.repeat(max + 1) }), 400, 'Input_TooLong', name);`,
      "        expect((await read(id))[name]).to.equal('x'.repeat(max));",
      '      });',
      '    }',
      '',
    ),
    requiredTexts.length > 0 && lines(
      "    it('a required text field refuses the empty string', async () => {",
      ...requiredTexts.map((f) =>
        `      expectError(await server.call(path, { method: 'POST', body: { ...${data(29)}, ${f.name}: '' } }), 400, 'Input_Required', '${f.name}');`),
      '    });',
      '',
    ),
    ...lookups.map((f) => lines(
      `    it('${f.name} must name an active entry of lookup table ${f.lookup}: otherwise a 400 on it, and nothing is written', async () => {`,
      '      const total = await count();',
      `      const bad = { ...${data(30)}, ${f.name}: ids.${f.name}.absent };`,
      `      expectError(await server.call(path, { method: 'POST', body: bad }), 400, '${lookupCode(spec, f)}', '${f.name}');`,
      '      expect(await count()).to.equal(total);',
      `      const id = await create(${data(30)});`,
      '      const before = await read(id);',
      `      expectError(await put(id, bad), 400, '${lookupCode(spec, f)}', '${f.name}');`,
      `      expectError(await patch(id, { ${f.name}: ids.${f.name}.absent }), 400, '${lookupCode(spec, f)}', '${f.name}');`,
      '      expect(await read(id)).to.deep.equal(before);',
      '    });',
      '',
    )),
  ).replace(/\n+$/, '\n') + '  });';

  const list = lines(
    "  describe('list: criteria, sorting and paging', () => {",
    '    let server: TestServer;',
    `    const rows: Item[] = [];`,
    '    before(async () => {',
    '      server = await startTestServer({ sampleData: false });',
    lookups.length > 0 && '      const ids = await lookupIds(server);',
    '      for (let n = 0; n < 12; n++) {',
    `        const data = ${data('n')};`,
    "        const reply = await server.call(path, { method: 'POST', body: data });",
    '        expectOk(reply, 201);',
    `        rows.push({ ${id}: reply.body.result.${id}, ...data });`,
    '      }',
    '    });',
    '    after(() => server.stop());',
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
      ...filterable.flatMap(filterChecks),
      '      ];',
      '      for (const [query, matches] of checks) {',
      '        const expected = rows.filter(matches);',
      '        expect(expected, `${query} matches some rows`).to.not.be.empty;',
      '        expect(idsOf((await list(query)).result), query).to.deep.equal(idsOf(expected));',
      '        const { totalCount } = await list(`${query}&take=0&getTotalCount=true`);',
      '        expect(totalCount, query).to.equal(expected.length);',
      '      }',
      '    });',
      '',
    ),
    "    it('refuses an unknown criteria field and an unknown sort field, each on its property', async () => {",
    `      expectError(await server.call(\`\${path}?${unknown}=1\`), 400, 'Input_UnknownProperty', '${unknown}');`,
    `      expectError(await server.call(\`\${path}?\${qs({ 'sort[0].fieldName': '${unknown}' })}\`), 400, 'Input_InvalidValue', 'sort[0].fieldName');`,
    '    });',
    '  });',
  );

  return lines(
    header(spec).trimEnd(),
    "import { expect } from 'chai';",
    importLine(['expectError', 'expectErrors', 'expectOk', 'qs'], '../support/api.js'),
    importLine(['type Envelope', 'type TestServer', 'startTestServer'], '../support/server.js'),
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
    `describe('${human} service', () => {`,
    crud,
    '',
    list,
    '});',
    '',
  );
}
