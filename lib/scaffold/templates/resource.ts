import { declaredFields, declaredTotals, usesDecimal } from '../declared-fields.js';
import type { ServiceSpec } from '../spec.js';
import { humanName } from '../../resources/names.js';
import { routeFileText } from '../route-file.js';
import { type FileContext, lines, lowerHuman } from './code.js';

/**
 * The files of a header-only service: its declaration, which the layer runs (lib/resources), and the thin files
 * around it. Nothing here is an implementation a team would have to keep in step: a new field is one line of the
 * declaration and one migration `restlayer migration make` writes.
 */

const made = (spec: ServiceSpec) => `// Made by \`${spec.command}\`.`;

/** services/<name>/<name>.ts: the declaration, with its child collection (`--child`) declared above it. */
export function declarationFile(spec: ServiceSpec): string {
  const { camel, kebab, child } = spec;
  const field = (f: { name: string; code: string }) => `    ${f.name}: ${f.code},`;
  const childOf = child ? [
    `/** The ${child.plural} of a ${lowerHuman(spec)}, served at /${kebab}/{id}/${child.segment} (their writes are updates of the ${lowerHuman(spec)}). */`,
    `const ${child.plural} = child({`,
    `  item: '${child.segment}',`,
    '  fields: {',
    ...declaredFields(child).map(field),
    '  },',
    '});',
    '',
  ] : [];
  const routes = child ? `; its ${child.plural} at /${kebab}/{id}/${child.segment}` : '';
  const fields = [...declaredFields(spec), ...declaredTotals(spec)];
  const actions = spec.actions ?? [];
  const decimal = usesDecimal(fields) || (child !== undefined && usesDecimal(declaredFields(child)));
  const imports = [decimal && 'Decimal', actions.length && 'action', child && 'child', 'field', 'resource'].filter(Boolean).join(', ');
  const actionsOf = actions.length ? [
    '  actions: {',
    ...actions.flatMap((name) => [
      `    ${name}: action({`,
      `      summary: '${humanName(name)} ${/^[aeiou]/.test(lowerHuman(spec)) ? 'an' : 'a'} ${lowerHuman(spec)}.',`,
      '      // What it changes: set fields of change.after (read-only ones too); change.fail(code, text) refuses it.',
      '      run(_change) {},',
      '    }),',
    ]),
    '  },',
  ] : [];
  return lines(
    `${made(spec)} The declaration is yours: a field is one line here, and`,
    '// `restlayer migration make` then writes its migration.',
    `import { ${imports} } from 'restlayer';`,
    '',
    ...childOf,
    `/** ${spec.human} records, served at /${kebab}: read, list, create, update, patch, delete and history (permissions ${kebab}.read, .create, .update, .delete)${routes}. */`,
    `export const ${camel} = resource({`,
    `  name: '${kebab}',`,
    '  fields: {',
    ...fields.map(field),
    '  },',
    ...(child ? [`  children: { ${child.plural} },`] : []),
    ...actionsOf,
    '  // Record scopes, rules and actions are declared here too: scopes: { own: … }, rules: [(change) => …], actions: { … }.',
    '});',
    '',
  );
}

/** services/<name>/module.ts: what the application's module list registers. */
export function resourceModuleFile(spec: ServiceSpec): string {
  const { camel, kebab } = spec;
  return lines(
    made(spec),
    "import { serviceModule } from 'restlayer';",
    `import { ${camel}Migrations } from './migrations/index.js';`,
    `import { ${camel} } from './${kebab}.js';`,
    '',
    `/** ${spec.human} records. No seed data: a new store starts with an empty table. */`,
    `export const ${camel}Module = serviceModule({ name: '${kebab}', migrations: ${camel}Migrations, resources: [${camel}] });`,
    '',
  );
}

/** A route file: the verbs of one path, each the declaration's handler. */
const routeFile = (group: string, verbs: string) => (spec: ServiceSpec, at: FileContext) => routeFileText(made(spec), spec.camel, at.service(spec.kebab), group, verbs);

/** routes/<name>/index.ts, routes/<name>/[_<name>Id].ts and its history.ts. */
export const collectionRouteFile = routeFile('collection', 'GET, POST');
export const itemRoutesFile = routeFile('item', 'GET, PUT, PATCH, DELETE');
export const historyRoutesFile = routeFile('history', 'GET');

/** routes/<name>/[_<name>Id]/<child>/index.ts and [_<child>Id].ts: the child collection's list and create, one child's read and writes. */
export const childCollectionRouteFile = (spec: ServiceSpec, at: FileContext) => routeFile(`${spec.child!.plural}.collection`, 'GET, POST')(spec, at);
export const childItemRoutesFile = (spec: ServiceSpec, at: FileContext) => routeFile(`${spec.child!.plural}.item`, 'GET, PUT, PATCH, DELETE')(spec, at);
/** routes/<name>/[_<name>Id]/<action's path>.ts (`mark-paid.ts`): an action's POST, its routes group the key (`markPaid`). */
export const actionRouteFile = (action: string) => routeFile(action, 'POST');

/** services/<name>/<name>-proxy.ts: the typed client of the service (browser-safe: the declaration's type only). */
export function resourceProxyFile(spec: ServiceSpec): string {
  const { camel, kebab, pascal, id } = spec;
  const dates = ['modifiedDate', ...spec.fields.filter((f) => f.type === 'date').map((f) => f.name)].map((d) => `${d}: true`).join(', ');
  // A child's fields are never dates (child-spec.ts): its address is where its routes are.
  const { child } = spec;
  const children = child ? `, children: { ${child.plural}: { item: '${child.segment}', path: '${child.segment}', key: '${child.id}' } }` : '';
  const actions = spec.actions?.length ? `, actions: { ${spec.actions.map((a) => `${a}: true`).join(', ')} }` : '';
  return lines(
    made(spec),
    "import { resourceProxy } from 'restlayer/client';",
    `import type { ${camel} } from './${kebab}.js';`,
    '',
    `/** The ${lowerHuman(spec)} service over HTTP, for clients. */`,
    `export const ${pascal}Proxy = resourceProxy<typeof ${camel}>({ name: '${kebab}', key: '${id}', dates: { ${dates} }${children}${actions} });`,
    '',
  );
}

/** test/<name>/<name>.drift.ts: the proxy with a valid call of each method, made from the declaration (`driftProxy`). */
export function resourceDriftFile(spec: ServiceSpec, at: FileContext): string {
  const { camel, kebab, pascal } = spec;
  return lines(
    made(spec),
    "import { resourceDrift } from 'restlayer/testing';",
    `import { ${camel} } from '${at.service(kebab)}';`,
    `import { ${pascal}Proxy } from '${at.service(`${kebab}-proxy`)}';`,
    '',
    '/** The proxy and a valid call of each of its methods, for the drift checks (`proxyDrift`, a project-wide drift test). */',
    `export const driftProxy = resourceDrift(${pascal}Proxy, ${camel});`,
    '',
  );
}

/** test/<name>/<name>.test.ts: the shared suite over the declaration, the proxy's drift, and a place for the team's own tests. */
export function resourceTestFile(spec: ServiceSpec, at: FileContext): string {
  const { camel, kebab, pascal } = spec;
  return lines(
    made(spec),
    "import { expect } from 'chai';",
    "import { describeStores, proxyDrift, resourceSuite } from 'restlayer/testing';",
    `import { application } from '${at.modules}';`,
    `import { ${camel} } from '${at.service(kebab)}';`,
    `import { ${pascal}Proxy } from '${at.service(`${kebab}-proxy`)}';`,
    `import { driftProxy } from './${kebab}.drift.js';`,
    '',
    `describeStores('${kebab}', function () {`,
    '  // What the declaration promises, over HTTP on a real server: CRUD, criteria, sorting, paging, validation, history.',
    `  resourceSuite({ application, resource: ${camel} });`,
    '',
    `  it('its proxy sends what its routes take', async () => expect(await proxyDrift(application, ${pascal}Proxy, driftProxy)).to.deep.equal([]));`,
    '',
    `  // The ${lowerHuman(spec)} service's own tests (its rules, actions, scopes) go here: startTestServer({ application }) and call.`,
    '});',
    '',
  );
}
