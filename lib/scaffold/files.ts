import type { ServiceSpec } from './spec.js';
import { driftFile } from './templates/drift.js';
import { migrationsFile } from './templates/migrations.js';
import { modelsFile } from './templates/models.js';
import { moduleFile } from './templates/module.js';
import { proxyFile } from './templates/proxy.js';
import { itemRouteFile, listRouteFile } from './templates/routes.js';
import { serviceFile } from './templates/service.js';
import { sqlServiceFile } from './templates/sql-service.js';
import { tablesFile } from './templates/tables.js';
import { testDataFile } from './templates/test-data.js';
import { testFile } from './templates/test.js';

export interface GeneratedFile {
  /** Relative to the project folder, with `/` separators. */
  path: string;
  content: string;
}

/** The folders a service's files go into: each must be new unless the caller forces an overwrite. */
export const serviceFolders = (spec: ServiceSpec) => [`services/${spec.kebab}`, `routes/${spec.kebab}`, `test/${spec.kebab}`];

/** Every file of a new service: its module, its routes and its tests. */
export function serviceFiles(spec: ServiceSpec): GeneratedFile[] {
  const { kebab } = spec;
  const files: [string, (spec: ServiceSpec) => string][] = [
    [`services/${kebab}/${kebab}-models.ts`, modelsFile],
    [`services/${kebab}/${kebab}-service.ts`, serviceFile],
    [`services/${kebab}/sql-${kebab}-service.ts`, sqlServiceFile],
    [`services/${kebab}/${kebab}-proxy.ts`, proxyFile],
    [`services/${kebab}/${kebab}-tables.ts`, tablesFile],
    [`services/${kebab}/migrations.ts`, migrationsFile],
    [`services/${kebab}/module.ts`, moduleFile],
    [`routes/${kebab}/index.ts`, listRouteFile],
    [`routes/${kebab}/[${spec.idParam}].ts`, itemRouteFile],
    [`test/${kebab}/${kebab}.test.ts`, testFile],
    [`test/${kebab}/${kebab}-data.ts`, testDataFile],
    [`test/${kebab}/${kebab}.drift.ts`, driftFile],
  ];
  return files.map(([path, template]) => ({ path, content: template(spec) }));
}
