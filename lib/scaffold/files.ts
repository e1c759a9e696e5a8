import { kebabCase } from '../resources/names.js';
import { type ProjectLayout, importPath } from './layout.js';
import type { ServiceSpec } from './spec.js';
import type { Template } from './templates/code.js';
import {
  actionRouteFile, childCollectionRouteFile, childItemRoutesFile, collectionRouteFile, declarationFile, historyRoutesFile, itemRoutesFile, resourceDriftFile,
  resourceModuleFile, resourceProxyFile, resourceTestFile,
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

/**
 * Every file of a new service, where the project's layout keeps them: its declaration (with its child collection, if
 * any), first migration, module, proxy, route files and test. The layer runs the declaration; the rest is thin.
 */
export function serviceFiles(spec: ServiceSpec, layout: ProjectLayout): GeneratedFile[] {
  const { kebab, child } = spec;
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
    // The children's routes below the record's: /<name>/{id}/<child>[/{childId}].
    ...(child ? [
      [`${routes}/[${spec.idParam}]/${child.segment}/index.ts`, childCollectionRouteFile],
      [`${routes}/[${spec.idParam}]/${child.segment}/[${child.idParam}].ts`, childItemRoutesFile],
    ] satisfies [string, Template][] : []),
    // An action's file is its path (`mark-paid.ts`), exporting its key's routes (`routes.markPaid`).
    ...(spec.actions ?? []).map((action): [string, Template] => [`${routes}/[${spec.idParam}]/${kebabCase(action)}.ts`, actionRouteFile(action)]),
    [`${tests}/${kebab}.test.ts`, resourceTestFile],
    [`${tests}/${kebab}.drift.ts`, resourceDriftFile],
  ];
  return files.map(([path, template]) => ({
    path,
    content: template(spec, { modules: importPath(path, layout.modules), service: (name) => importPath(path, `${service}/${name}.ts`) }),
  }));
}
