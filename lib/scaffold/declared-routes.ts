import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { ServiceModule } from '../modules.js';
import type { ResourceModel } from '../resources/model.js';
import { routePath, routePathsOf } from '../routing/load-routes.js';
import { type ProjectLayout, importPath, serviceFile } from './layout.js';
import { routeExports, routeFileText } from './route-file.js';

/** A path a declaration adds after the scaffold's first files: the file that serves it and what it exports. */
interface DeclaredRoute {
  /** Below the routes folder, with `/` separators. */
  readonly file: string;
  /** The declaration's routes group it names (`pay`, `markPaid`, `lines.collection`, `restore!`). */
  readonly group: string;
  readonly verbs: string;
}

/** The route files a resource's actions, child collections and restore need (the scaffold writes the others). */
function declaredRoutes(model: ResourceModel): DeclaredRoute[] {
  const item = `${model.name}/[${model.param}]`;
  return [
    ...model.children.flatMap((child) => [
      { file: `${item}/${child.path}/index.ts`, group: `${child.property}.collection`, verbs: 'GET, POST' },
      { file: `${item}/${child.path}/[${child.param}].ts`, group: `${child.property}.item`, verbs: 'GET, PUT, PATCH, DELETE' },
    ]),
    // An action's file is its path (`mark-paid.ts`), its group its key (`markPaid`).
    ...Object.values(model.actions).map((action) => ({ file: `${item}/${action.path}.ts`, group: action.name, verbs: 'POST' })),
    // `routes.restore` is typed optional (only a soft-deletable resource has it): the file asserts it.
    ...(model.softDelete ? [{ file: `${item}/restore.ts`, group: 'restore!', verbs: 'POST' }] : []),
  ];
}

/** What `migration make` did about route files: those written (or, with --check, to write), and those left to a person. */
export interface RouteFiles {
  readonly written: string[];
  readonly byHand: string[];
}

/**
 * The one-line route file of every path a module's declarations serve that no route file of the project serves yet
 * (an action added to a declaration, soft delete's restore, a child collection), so that such an addition is made in
 * the declaration alone: file-system routes stay the design, and the file is there to read. A file is written only
 * where the declaration is where the scaffold puts it (`<services>/<module>/<name>.ts`, exporting `<camel>`);
 * otherwise the file to write is named in `byHand`. A path served by a file of any name is left alone.
 */
export function writeDeclaredRoutes(modules: readonly ServiceModule[], root: string, layout: ProjectLayout, check = false): RouteFiles {
  const routesDir = join(root, layout.routes);
  const served = new Set(existsSync(routesDir) ? routePathsOf(routesDir) : []);
  const written: string[] = [];
  const byHand: string[] = [];
  for (const module of modules) {
    for (const { model } of module.resources ?? []) {
      const declaration = serviceFile(layout, module.name, model.name);
      const found = existsSync(join(root, declaration)) && new RegExp(`export const ${model.camel}\\b`).test(readFileSync(join(root, declaration), 'utf8'));
      for (const route of declaredRoutes(model)) {
        if (served.has(routePath(route.file.split('/').join(sep)))) continue;
        const file = `${layout.routes}/${route.file}`;
        if (!found) {
          byHand.push(`${file}: ${routeExports(model.camel, route.group, route.verbs)} (the declaration of ${model.name} is not ${declaration})`);
          continue;
        }
        written.push(file);
        if (check) continue;
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), routeFileText('// Made by `restlayer migration make`: a path the declaration serves.',
          model.camel, importPath(file, declaration), route.group, route.verbs));
      }
    }
  }
  return { written, byHand };
}
