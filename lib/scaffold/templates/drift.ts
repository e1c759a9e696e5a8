import type { FieldSpec, ServiceSpec } from '../spec.js';
import { readAllName } from './child-routes.js';
import { type FileContext, filterableFields, header, lines, optionalFields, sortableFields } from './code.js';

/** A valid value of a field as TypeScript source (the proxy takes dates as Date). */
function literal(field: FieldSpec): string {
  switch (field.type) {
    case 'text': return `'${'T0001'.slice(-(field.max ?? 5))}'`;
    case 'integer': return '3';
    case 'decimal': return '2.75';
    case 'money': return '19.9975';
    case 'date': return "new Date('2024-01-04T09:30:00.000Z')";
    case 'boolean': return 'false';
    case 'lookup': return '1';
  }
}

/** One criterion per filterable field, using the operators its kind takes. */
function criterion(field: FieldSpec): string {
  switch (field.type) {
    case 'text': return "{ operator: 'CN', values: ['50% off_'] }";
    case 'integer': return "{ operator: 'BW', values: [1, 10] }";
    case 'decimal': return "{ operator: 'GE', values: [2.5] }";
    case 'money': return "{ operator: 'BW', values: [0.1, 99.9999] }";
    case 'date': return "{ operator: 'BW', values: [new Date('2024-01-01T00:00:00Z'), new Date('2024-01-31T00:00:00Z')] }";
    case 'boolean': return "{ operator: 'EQ', values: [true] }";
    case 'lookup': return "{ operator: 'In', values: [1, 5] }";
  }
}

/**
 * <tests>/<name>/<name>.drift.ts: the proxy with one valid call of each method. The service's test checks it against
 * the routes (proxyDrift); in this repository test/client/drift.test.ts finds every `*.drift.js` beside the tests too.
 */
export function driftFile(spec: ServiceSpec, at: FileContext): string {
  const { pascal, kebab, child } = spec;
  const [first] = spec.fields;
  const [cleared] = optionalFields(spec);
  const sortField = sortableFields(spec)[0]?.name ?? spec.id;
  const patch = cleared ? `${cleared.name}: null` : `${first.name}: ${literal(first)}`;
  return lines(
    header(spec).trimEnd(),
    "import type { RestClient } from 'restlayer/client';",
    "import { type ProxyUnderTest, methodsOf } from 'restlayer/testing';",
    `import { ${pascal}Proxy } from '${at.service(`${kebab}-proxy`)}';`,
    '',
    `/** The ${kebab} proxy and a valid call of each of its methods, for its drift test (proxyDrift of restlayer/testing). */`,
    'export function driftProxy(client: RestClient): ProxyUnderTest {',
    `  const proxy = new ${pascal}Proxy(client);`,
    '  const data = {',
    ...spec.fields.map((f) => `    ${f.name}: ${literal(f)},`),
    '  };',
    ...(child
      ? [
        `  const ${child.camel} = {`,
        ...child.fields.map((f) => `    ${f.name}: ${literal(f)},`),
        '  };',
      ]
      : []),
    '  return {',
    `    description: ${pascal}Proxy,`,
    '    methods: methodsOf(proxy),',
    '    samples: {',
    '      read: () => proxy.read(1),',
    '      readList: () => proxy.readList({',
    ...filterableFields(spec).map((f) => `        ${f.name}: ${criterion(f)},`),
    '        skip: 10, take: 5, getTotalCount: true,',
    `        sort: [{ fieldName: '${sortField}', sortDirection: 'Descending' }],`,
    '      }),',
    child ? `      create: () => proxy.create({ ...data, ${child.plural}: [${child.camel}] }),` : '      create: () => proxy.create(data),',
    '      update: () => proxy.update(1, { ...data, revisionNumber: 3 }),',
    `      patch: () => proxy.patch(1, { ${patch}, revisionNumber: 3 }),`,
    '      delete: () => proxy.delete(1),',
    '      history: () => proxy.history(1, { skip: 2, take: 5 }),',
    ...(child
      ? [
        `      ${readAllName(child)}: () => proxy.${readAllName(child)}(1),`,
        `      read${child.short}: () => proxy.read${child.short}(1, 2),`,
        `      create${child.short}: () => proxy.create${child.short}(1, { ...${child.camel}, revisionNumber: 3 }),`,
        `      update${child.short}: () => proxy.update${child.short}(1, 2, { ...${child.camel}, revisionNumber: 3 }),`,
        `      patch${child.short}: () => proxy.patch${child.short}(1, 2, { ${child.fields[0].name}: ${literal(child.fields[0])}, revisionNumber: 3 }),`,
        `      delete${child.short}: () => proxy.delete${child.short}(1, 2, 3),`,
      ]
      : []),
    '    },',
    '  };',
    '}',
    '',
  );
}
