import type { ChildSpec, ServiceSpec } from '../spec.js';
import { type FileContext, type Template, header, importLine, lines, lowerHuman } from './code.js';
import { aChild } from './child-models.js';
import { permissionOf } from './routes.js';
import { routeScopesName } from './scopes.js';

/** The child of a spec that has one (the writer asks for these files only then). */
function childOf(spec: ServiceSpec): ChildSpec {
  if (!spec.child) throw new Error(`${spec.kebab} has no child collection`);
  return spec.child;
}

/** `readLines`: the method reading the whole collection. */
export const readAllName = (child: ChildSpec) => `read${child.plural.charAt(0).toUpperCase()}${child.plural.slice(1)}`;

/** routes/<name>/[_<name>Id]/<child>/index.ts: the children of one record, and adding one. */
export const childListRouteFile: Template = (spec: ServiceSpec, at: FileContext) => {
  const child = childOf(spec);
  const { pascal, camel, kebab, idParam } = spec;
  const human = lowerHuman(spec);
  return lines(
    header(spec).trimEnd(),
    "import { array } from 'restlayer';",
    `import { route } from '${at.modules}';`,
    importLine([`${pascal}Key`, `${child.pascal}CreateData`, `${child.pascal}Read`, `${child.pascal}WriteResult`], at.service(`${kebab}-models`)),
    `import { ${routeScopesName(spec)} } from '${at.service(`${kebab}-scopes`)}';`,
    '',
    'export const GET = route({',
    `  summary: 'List the ${child.plural} of ${aOrAn(human)}, by id.',`,
    `  permission: '${permissionOf(spec, 'GET', true)}',`,
    `  ...${routeScopesName(spec)},`,
    `  operation: 'I${pascal}Service.${readAllName(child)}',`,
    `  params: ${pascal}Key,`,
    `  result: array(${child.pascal}Read),`,
    '  answers: [404],',
    `  handle: ({ params, services }) => services.${camel}.${readAllName(child)}(params.${idParam}),`,
    '});',
    '',
    'export const POST = route({',
    `  summary: 'Add ${aChild(child)} to ${aOrAn(human)}; answers its id and the ${human}\\'s new totals and revision (a stale revisionNumber is a 409).',`,
    `  permission: '${permissionOf(spec, 'POST', true)}',`,
    `  ...${routeScopesName(spec)},`,
    `  operation: 'I${pascal}Service.create${child.short}',`,
    `  params: ${pascal}Key,`,
    `  body: ${child.pascal}CreateData,`,
    `  result: ${child.pascal}WriteResult,`,
    '  answers: [404, 409],',
    '  async handle({ params, body, services, created }) {',
    `    const output = await services.${camel}.create${child.short}(params.${idParam}, body);`,
    `    const id = output.result?.${child.id};`,
    `    if (id !== undefined) created(\`/${kebab}/\${params.${idParam}}/${child.segment}/\${id}\`);`,
    '    return output;',
    '  },',
    '});',
    '',
  );
};

/** routes/<name>/[_<name>Id]/<child>/[_<child>Id].ts: one child of one record. */
export const childItemRouteFile: Template = (spec: ServiceSpec, at: FileContext) => {
  const child = childOf(spec);
  const { pascal, camel, kebab, idParam } = spec;
  const human = lowerHuman(spec);
  const ids = `params.${idParam}, params.${child.idParam}`;
  const writes = `answers the ${human}'s new totals and revision; a stale revisionNumber is a 409`;
  const verb = (name: string, summary: string, method: string, extra: string[], answers: string, [args, call]: [string, string]) => lines(
    `export const ${name} = route({`,
    `  summary: '${summary.replace(/'/g, "\\'")}',`,
    `  permission: '${permissionOf(spec, name, true)}',`,
    `  ...${routeScopesName(spec)},`,
    `  operation: 'I${pascal}Service.${method}',`,
    `  params: ${child.pascal}Key,`,
    ...extra.map((e) => `  ${e},`),
    `  answers: [${answers}],`,
    `  handle: ({ ${args} }) => services.${camel}.${call},`,
    '});',
  );
  const handle = (args: string, call: string): [string, string] => [args, call];
  return lines(
    header(spec).trimEnd(),
    `import { route } from '${at.modules}';`,
    importLine([
      `${child.pascal}DeleteQuery`, `${child.pascal}Key`, `${child.pascal}PatchData`, `${child.pascal}Read`, `${child.pascal}UpdateData`, `${child.pascal}WriteResult`,
    ], at.service(`${kebab}-models`)),
    `import { ${routeScopesName(spec)} } from '${at.service(`${kebab}-scopes`)}';`,
    '',
    verb('GET', `Read one ${child.segment} of ${aOrAn(human)}; one of another ${human} is a 404.`, `read${child.short}`, [`result: ${child.pascal}Read`], '404',
      handle('params, services', `read${child.short}(${ids})`)),
    '',
    verb('PUT', `Replace ${aChild(child)}; ${writes}.`, `update${child.short}`, [`body: ${child.pascal}UpdateData`, `result: ${child.pascal}WriteResult`], '404, 409',
      handle('params, body, services', `update${child.short}(${ids}, body)`)),
    '',
    verb('PATCH', `Change only the fields of ${aChild(child)} the body names (JSON merge patch); ${writes}.`, `patch${child.short}`,
      [`body: ${child.pascal}PatchData`, `result: ${child.pascal}WriteResult`], '404, 409', handle('params, body, services', `patch${child.short}(${ids}, body)`)),
    '',
    verb('DELETE', `Remove ${aChild(child)}; the query's revisionNumber is the ${human}'s; ${writes}.`, `delete${child.short}`,
      [`query: ${child.pascal}DeleteQuery`, `result: ${child.pascal}WriteResult`], '404, 409',
      handle('params, query, services', `delete${child.short}(${ids}, query.revisionNumber)`)),
    '',
  );
};

const aOrAn = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
