import { type ProjectLayout, importPath } from './layout.js';
import type { ServiceSpec } from './spec.js';
import type { Template } from './templates/code.js';
import { childItemRouteFile, childListRouteFile } from './templates/child-routes.js';
import { childTestFile } from './templates/child-test.js';
import { auditFile } from './templates/audit.js';
import { driftFile } from './templates/drift.js';
import { historyRouteFile } from './templates/history-route.js';
import { migrationsFile } from './templates/migrations.js';
import { modelsFile } from './templates/models.js';
import { moduleFile } from './templates/module.js';
import { proxyFile } from './templates/proxy.js';
import { scopesFile } from './templates/scopes.js';
import { itemRouteFile, listRouteFile } from './templates/routes.js';
import { serviceFile } from './templates/service.js';
import { sqlServiceFile } from './templates/sql-service.js';
import { tablesFile } from './templates/tables.js';
import { testDataFile } from './templates/test-data.js';
import { testFile } from './templates/test.js';
import {
  collectionRouteFile, declarationFile, historyRoutesFile, itemRoutesFile, resourceDriftFile, resourceModuleFile, resourceProxyFile, resourceTestFile,
} from './templates/resource.js';
import { firstMigration } from './declared-fields.js';
import { migrationIndexFile } from './migration-file.js';

export interface GeneratedFile {
  /** Relative to the project folder, with `/` separators. */
  path: string;
  content: string;
}

/** The folders a service's files go into: each must be new unless the caller forces an overwrite. */
export const serviceFolders = (spec: ServiceSpec, layout: ProjectLayout) =>
  [layout.services, layout.routes, layout.tests].map((folder) => `${folder}/${spec.kebab}`);

/** The files of a header-only service: its declaration, first migration, module, proxy, route files and test. */
function resourceFiles(spec: ServiceSpec, layout: ProjectLayout): GeneratedFile[] {
  const { kebab } = spec;
  const [service, routes, tests] = serviceFolders(spec, layout);
  const first = `0001-${kebab}`;
  const files: [string, Template][] = [
    [`${service}/${kebab}.ts`, declarationFile],
    [`${service}/migrations/${first}.ts`, firstMigration],
    [`${service}/migrations/index.ts`, () => migrationIndexFile(`${spec.camel}Migrations`, [first])],
    [`${service}/module.ts`, resourceModuleFile],
    [`${service}/${kebab}-proxy.ts`, resourceProxyFile],
    [`${routes}/index.ts`, collectionRouteFile],
    [`${routes}/[${spec.idParam}].ts`, itemRoutesFile],
    [`${routes}/[${spec.idParam}]/history.ts`, historyRoutesFile],
    [`${tests}/${kebab}.test.ts`, resourceTestFile],
    [`${tests}/${kebab}.drift.ts`, resourceDriftFile],
  ];
  return files.map(([path, template]) => ({
    path,
    content: template(spec, { modules: importPath(path, layout.modules), service: (name) => importPath(path, `${service}/${name}.ts`) }),
  }));
}

/**
 * Every file of a new service: its module, its routes and its tests, where the project's layout keeps them. A
 * header-only service is a declaration the layer runs; a service with a child collection keeps the generated
 * implementation until documents are declarations too.
 */
export function serviceFiles(spec: ServiceSpec, layout: ProjectLayout): GeneratedFile[] {
  if (!spec.child) return resourceFiles(spec, layout);
  const { kebab } = spec;
  const [service, routes, tests] = serviceFolders(spec, layout);
  const files: [string, Template][] = [
    [`${service}/${kebab}-models.ts`, modelsFile],
    [`${service}/${kebab}-service.ts`, serviceFile],
    [`${service}/sql-${kebab}-service.ts`, sqlServiceFile],
    [`${service}/${kebab}-proxy.ts`, proxyFile],
    [`${service}/${kebab}-tables.ts`, tablesFile],
    [`${service}/${kebab}-scopes.ts`, scopesFile],
    [`${service}/${kebab}-audit.ts`, auditFile],
    [`${service}/migrations.ts`, migrationsFile],
    [`${service}/module.ts`, moduleFile],
    [`${routes}/index.ts`, listRouteFile],
    [`${routes}/[${spec.idParam}].ts`, itemRouteFile],
    [`${routes}/[${spec.idParam}]/history.ts`, historyRouteFile],
    [`${tests}/${kebab}.test.ts`, testFile],
    [`${tests}/${kebab}-data.ts`, testDataFile],
    [`${tests}/${kebab}.drift.ts`, driftFile],
  ];
  const { child } = spec;
  if (child) {
    // The children's routes below the record's: /<name>/{id}/<child>[/{childId}].
    files.push(
      [`${routes}/[${spec.idParam}]/${child.segment}/index.ts`, childListRouteFile],
      [`${routes}/[${spec.idParam}]/${child.segment}/[${child.idParam}].ts`, childItemRouteFile],
      [`${tests}/${kebab}-${child.segment}.test.ts`, childTestFile],
    );
  }
  return files.map(([path, template]) => ({
    path,
    content: template(spec, { modules: importPath(path, layout.modules), service: (name) => importPath(path, `${service}/${name}.ts`) }),
  }));
}
