import type { LookupCache } from '../lookup/lookup-cache.js';
import type { ListDefinition } from '../storage/list-query.js';
import type { Storage } from '../storage/storage.js';
import type { Actions, Children, ResourceDeclaration, ShapeOf } from './declaration.js';
import { checkLookups, registerLookups } from './declared-lookups.js';
import type { ReferenceTarget } from './field.js';
import { listDefinitionOf } from './list-definition.js';
import { DeclarationError, type ResourceModel, modelOf } from './model.js';
import { type ResourceModels, modelsOf } from './models.js';
import type { Camel, DefaultKey } from './names.js';
import { declareResourceCodes } from './messages.js';
import { type ChildRoutes, type CrudRoutes, ROUTE_GROUPS, type RouteFile, routesOf } from './routes.js';
import type { RuntimeOptions } from './runtime/context.js';
import { operationsOf, runtimeOf } from './runtime/runtime.js';
import type { Fields, ResourceService, Shape } from './wire-types.js';

/** The route files of a resource: `routes.collection`, `routes.item`, `routes.history`, each child's, each action's. */
export type ResourceRoutes<S extends Shape> = CrudRoutes
  & { readonly [C in keyof S['children']]: ChildRoutes }
  & { readonly [A in keyof S['actions']]: RouteFile<'POST'> };

/**
 * A declared resource: its declaration worked out (names, columns, structs, the list, the routes), and how the layer
 * serves it on a store. Route files export its routes (`export const { GET, PUT, PATCH, DELETE } = customer.routes.item`),
 * a module lists it (`resources: [customer]`), a proxy takes its type (`resourceProxy<typeof customer>`).
 */
export interface Resource<S extends Shape = Shape, X = unknown> extends ReferenceTarget {
  /** For the compiler only (never set): the declaration's shape, which the typed service and proxy follow. */
  readonly shape?: S;
  /** For the compiler only (never set): what the resource's own code adds to its service (methods no route serves). */
  readonly own?: X;
  readonly name: S['name'];
  /** The wire name of its id. */
  readonly key: S['key'];
  readonly fields: S['fields'];
  /** Where routes find its service: `call.services.<serviceKey>` (`salesOrder`). */
  readonly serviceKey: Camel<S['name']>;
  readonly model: ResourceModel;
  /** The structs of its inputs and outputs (what routes validate and the OpenAPI document describes), and its criteria. */
  readonly models: ResourceModels;
  /** Its list, as the list engine reads it (for a project's own plan tests: `listSql(customer.list, …)`). */
  readonly list: ListDefinition<string>;
  readonly routes: ResourceRoutes<S>;
  /** Its service on a store (a module's wiring calls it once per server). */
  serve(options: RuntimeOptions): ResourceService<S> & X;
  /** Registers the lookup tables it declares (a module's wiring calls it once per server, before serving). */
  registerLookups(cache: LookupCache, storage: Storage): void;
}

/** Any resource, whatever its shape: what a module lists and the wiring serves. */
export interface AnyResource {
  readonly shape?: unknown;
  readonly name: string;
  readonly serviceKey: string;
  readonly model: ResourceModel;
  readonly models: ResourceModels;
  readonly list: ListDefinition<string>;
  readonly routes: CrudRoutes;
  serve(options: RuntimeOptions): object;
  registerLookups(cache: LookupCache, storage: Storage): void;
}

type None = Record<never, never>;

/**
 * Declares a resource: typed data (fields, children, scopes) and a few functions (rules, actions), from which the
 * layer runs read, list, create, update, patch, delete, history, child routes and actions — on every store, with the
 * caller's reach in every statement. A declaration that cannot run throws here (DeclarationError), when its module
 * is imported: a field that does not exist, a derivation from text, a total of no child…
 */
export function resource<
  const N extends string, const F extends Fields, const C extends Children = None, const A extends Actions = None, const K extends string = DefaultKey<N>,
  X extends object = None,
>(declaration: ResourceDeclaration<N, K, F, C, A, X>): Resource<ShapeOf<N, K, F, C, A>, X> {
  const model = modelOf(declaration);
  // Its codes (`<Resource>_Invalid<Field>`, `<Resource>_Unknown<Other>`) in the catalogue, for the document and the languages.
  declareResourceCodes(model);
  for (const name of [...model.children.map((c) => c.property), ...Object.keys(model.actions)]) {
    if (ROUTE_GROUPS.has(name)) throw new DeclarationError(model.name, `${name}: a child collection or an action may not be named ${[...ROUTE_GROUPS].join(', ')}`);
  }
  // An action's key is checked camelCase, and its path made, by modelOf; here neither may be a child collection's.
  const actions = Object.values(model.actions);
  const clash = model.children.find((c) => actions.some((a) => a.name === c.property || a.path === c.path));
  if (clash) throw new DeclarationError(model.name, `${clash.property}: a child collection and an action have one name or path`);
  checkLookups(model.name, declaration.lookups);
  const models = modelsOf(model);
  const list = listDefinitionOf(model);
  let routes: ResourceRoutes<ShapeOf<N, K, F, C, A>> | undefined;
  type Served = ResourceService<ShapeOf<N, K, F, C, A>> & X;
  return {
    name: declaration.name,
    key: model.key as K,
    fields: declaration.fields,
    serviceKey: model.camel as Camel<N>,
    model,
    models,
    list,
    // Made when first asked for (a route file imports them): a CLI command that serves nothing makes none.
    get routes() {
      return (routes ??= routesOf(model, models) as ResourceRoutes<ShapeOf<N, K, F, C, A>>);
    },
    serve(options) {
      // The operations are built from the model; their types are the declaration's (wire-types.ts).
      const runtime = runtimeOf(model, list, options);
      const defaults = operationsOf(runtime) as unknown as ResourceService<ShapeOf<N, K, F, C, A>>;
      const served = (declaration.service ? { ...defaults, ...declaration.service(defaults, options) } : defaults) as Served;
      // Tags are what the served read answers: a read of its own makes writes read it again for theirs.
      if (served.read !== defaults.read) runtime.versions.readReplaced();
      return served;
    },
    registerLookups(cache, storage) {
      registerLookups(cache, storage, declaration.lookups, model.name);
    },
  };
}
