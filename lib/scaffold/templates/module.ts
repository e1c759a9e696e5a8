import { type ServiceSpec, uniqueFields, uniqueIndexName } from '../spec.js';
import { header, importLine, lines, lookupFields } from './code.js';

/** services/<name>/module.ts: the declaration services/index.ts lists. */
export function moduleFile(spec: ServiceSpec): string {
  const { pascal, camel, kebab } = spec;
  const lookups = lookupFields(spec).length > 0;
  const unique = uniqueFields(spec);
  return lines(
    header(spec).trimEnd(),
    importLine([spec.child && 'documentLimits', 'listLimits', 'serviceModule'], 'restlayer'),
    `import { ${camel}Migrations } from './migrations.js';`,
    `import type { I${pascal}Service } from './${kebab}-service.js';`,
    `import { Sql${pascal}Service } from './sql-${kebab}-service.js';`,
    '',
    `/** ${spec.human} records. No seed data: a new store starts with an empty table. */`,
    `export const ${camel}Module = serviceModule({`,
    `  name: '${kebab}',`,
    `  migrations: ${camel}Migrations,`,
    unique.length > 0 && '  // A duplicate of a unique field is a 409 Entity_Duplicate on the field, whoever wins a race.',
    unique.length > 0 && `  uniqueKeys: [${unique.map((f) => `{ index: '${uniqueIndexName(spec, f)}', property: '${f.name}' }`).join(', ')}],`,
    `  create: ({ storage, ${lookups ? 'lookups, ' : ''}config }): { ${camel}: I${pascal}Service } => ({`,
    `    ${camel}: new Sql${pascal}Service(storage, ${lookups ? 'lookups, ' : ''}${spec.child ? '{ ...listLimits(config), ...documentLimits(config) }' : 'listLimits(config)'}),`,
    '  }),',
    '});',
    '',
  );
}
