import type { ServiceSpec } from '../spec.js';
import { dateFields, header, importLine, lines, quoted } from './code.js';
import { childModelTypes } from './child-service.js';
import { readAllName } from './child-routes.js';
import { historyTypes, modelTypesImport } from './service.js';

/** services/<name>/<name>-proxy.ts: the service's interface over HTTP, for clients (browser-safe: no node: imports). */
export function proxyFile(spec: ServiceSpec): string {
  const { pascal, kebab, id, idParam, child } = spec;
  const dates = [...dateFields(spec).map((f) => f.name), 'modifiedDate'];
  const params = `{ params: { ${idParam}: ${id} }`;
  return lines(
    header(spec).trimEnd(),
    importLine(['type DateKeys', 'type OperationTable', 'type Output', 'type RestClient', 'criteriaToQuery'], 'restlayer/client'),
    modelTypesImport(spec, [...(child ? childModelTypes(child) : []), ...historyTypes(pascal)]),
    `import type { I${pascal}Service } from './${kebab}-service.js';`,
    '',
    '/**',
    ` * Where each operation is served, written out here so the proxy needs no route files. The compiler makes it cover`,
    ` * every method of I${pascal}Service, and the service's drift test fails when a call disagrees with its route.`,
    ' */',
    'const operations = {',
    `  read: { verb: 'GET', path: '/${kebab}/{${idParam}}' },`,
    `  readList: { verb: 'GET', path: '/${kebab}' },`,
    `  create: { verb: 'POST', path: '/${kebab}' },`,
    `  update: { verb: 'PUT', path: '/${kebab}/{${idParam}}' },`,
    `  patch: { verb: 'PATCH', path: '/${kebab}/{${idParam}}' },`,
    `  delete: { verb: 'DELETE', path: '/${kebab}/{${idParam}}' },`,
    `  history: { verb: 'GET', path: '/${kebab}/{${idParam}}/history' },`,
    ...(child
      ? [
        `  ${readAllName(child)}: { verb: 'GET', path: '/${kebab}/{${idParam}}/${child.segment}' },`,
        `  read${child.short}: { verb: 'GET', path: '/${kebab}/{${idParam}}/${child.segment}/{${child.idParam}}' },`,
        `  create${child.short}: { verb: 'POST', path: '/${kebab}/{${idParam}}/${child.segment}' },`,
        `  update${child.short}: { verb: 'PUT', path: '/${kebab}/{${idParam}}/${child.segment}/{${child.idParam}}' },`,
        `  patch${child.short}: { verb: 'PATCH', path: '/${kebab}/{${idParam}}/${child.segment}/{${child.idParam}}' },`,
        `  delete${child.short}: { verb: 'DELETE', path: '/${kebab}/{${idParam}}/${child.segment}/{${child.idParam}}' },`,
      ]
      : []),
    `} as const satisfies OperationTable<I${pascal}Service>;`,
    '',
    '/** The result properties that are dates; the check below fails to compile when a model gains a Date property not listed. */',
    `const dates = [${quoted(dates)}] as const satisfies readonly ${pascal}Date[];`,
    `type ${pascal}Date = DateKeys<${pascal}_ReadOutput> | DateKeys<${pascal}_ReadListOutput> | DateKeys<${pascal}_UpdateOutput> | DateKeys<${pascal}_CreateOutput>${child ? ` | DateKeys<${child.pascal}_WriteOutput>` : ''};`,
    `const everyDateListed: [Exclude<${pascal}Date, (typeof dates)[number]>] extends [never] ? true : never = true;`,
    'void everyDateListed;',
    '',
    `/** I${pascal}Service over HTTP: the same interface as the service on the server, for clients. */`,
    `export class ${pascal}Proxy implements I${pascal}Service {`,
    `  static readonly service = 'I${pascal}Service';`,
    '  static readonly operations = operations;',
    '  static readonly notExposed = [] as const;',
    '',
    '  constructor(private readonly client: RestClient) {}',
    '',
    `  read(${id}: number): Promise<Output<${pascal}_ReadOutput>> {`,
    `    return this.client.call(operations.read, ${params}, dates });`,
    '  }',
    '',
    `  readList(criteria: ${pascal}_ReadListInput_Criteria): Promise<Output<${pascal}_ReadListOutput[]>> {`,
    '    return this.client.call(operations.readList, { query: criteriaToQuery(criteria), dates });',
    '  }',
    '',
    `  create(data: ${pascal}_CreateInput_Data): Promise<Output<${pascal}_CreateOutput>> {`,
    '    return this.client.call(operations.create, { body: data, dates });',
    '  }',
    '',
    `  update(${id}: number, data: ${pascal}_UpdateInput_Data): Promise<Output<${pascal}_UpdateOutput>> {`,
    `    return this.client.call(operations.update, ${params}, body: data, dates });`,
    '  }',
    '',
    `  patch(${id}: number, data: ${pascal}_PatchInput_Data): Promise<Output<${pascal}_UpdateOutput>> {`,
    `    return this.client.call(operations.patch, ${params}, body: data, dates });`,
    '  }',
    '',
    `  delete(${id}: number): Promise<Output> {`,
    `    return this.client.call(operations.delete, ${params} });`,
    '  }',
    '',
    "  /** The record's history, newest first; `at` is a Date. */",
    `  history(${id}: number, page: ${pascal}_HistoryInput = {}): Promise<Output<${pascal}_HistoryOutput[]>> {`,
    '    const query = new URLSearchParams(Object.entries(page).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));',
    `    return this.client.call(operations.history, ${params}, query, dates: ['at'] });`,
    '  }',
    child && childProxyMethods(spec),
    '}',
    '',
  );
}

/** The proxy's methods of the child collection. */
function childProxyMethods(spec: ServiceSpec): string {
  const { id, idParam, child } = spec;
  if (!child) return '';
  const { pascal, short } = child;
  const cid = child.id;
  const both = `{ params: { ${idParam}: ${id}, ${child.idParam}: ${cid} }`;
  const one = `{ params: { ${idParam}: ${id} }`;
  return lines(
    '',
    `  ${readAllName(child)}(${id}: number): Promise<Output<${pascal}_ReadOutput[]>> {`,
    `    return this.client.call(operations.${readAllName(child)}, ${one} });`,
    '  }',
    '',
    `  read${short}(${id}: number, ${cid}: number): Promise<Output<${pascal}_ReadOutput>> {`,
    `    return this.client.call(operations.read${short}, ${both} });`,
    '  }',
    '',
    `  create${short}(${id}: number, data: ${pascal}_CreateInput_Data): Promise<Output<${pascal}_WriteOutput>> {`,
    `    return this.client.call(operations.create${short}, ${one}, body: data, dates });`,
    '  }',
    '',
    `  update${short}(${id}: number, ${cid}: number, data: ${pascal}_UpdateInput_Data): Promise<Output<${pascal}_WriteOutput>> {`,
    `    return this.client.call(operations.update${short}, ${both}, body: data, dates });`,
    '  }',
    '',
    `  patch${short}(${id}: number, ${cid}: number, data: ${pascal}_PatchInput_Data): Promise<Output<${pascal}_WriteOutput>> {`,
    `    return this.client.call(operations.patch${short}, ${both}, body: data, dates });`,
    '  }',
    '',
    `  delete${short}(${id}: number, ${cid}: number, revisionNumber?: number | null): Promise<Output<${pascal}_WriteOutput>> {`,
    '    const query = new URLSearchParams(revisionNumber == null ? {} : { revisionNumber: String(revisionNumber) });',
    `    return this.client.call(operations.delete${short}, ${both}, query, dates });`,
    '  }',
  );
}
