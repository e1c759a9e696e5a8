import type { ServiceSpec } from '../spec.js';
import { ROOT, header, lines, lookupFields } from './code.js';

/** services/<name>/module.ts: the declaration services/index.ts lists. */
export function moduleFile(spec: ServiceSpec): string {
  const { pascal, camel, kebab } = spec;
  const lookups = lookupFields(spec).length > 0;
  return lines(
    header(spec).trimEnd(),
    `import { serviceModule } from '${ROOT}lib/modules.js';`,
    `import { listLimits } from '${ROOT}lib/storage/list-limits.js';`,
    `import { ${camel}Migrations } from './migrations.js';`,
    `import type { I${pascal}Service } from './${kebab}-service.js';`,
    `import { Sql${pascal}Service } from './sql-${kebab}-service.js';`,
    '',
    `/** ${spec.human} records. No seed data: a new store starts with an empty table. */`,
    `export const ${camel}Module = serviceModule({`,
    `  name: '${kebab}',`,
    `  migrations: ${camel}Migrations,`,
    `  create: ({ storage, ${lookups ? 'lookups, ' : ''}config }): { ${camel}: I${pascal}Service } => ({`,
    `    ${camel}: new Sql${pascal}Service(storage, ${lookups ? 'lookups, ' : ''}listLimits(config)),`,
    '  }),',
    '});',
    '',
  );
}
