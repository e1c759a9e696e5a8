import { array } from '../validation/fields.js';
import { historyQuery } from '../audit/history-query.js';
import { documentBody } from '../documents/document-limits.js';
import type { Output } from '../envelope/output.js';
import { modelQuery } from '../validation/model-query.js';
import type { LayerServices } from '../routing/layer-services.js';
import { type ExtraStatus, type QuerySchema, type Route, route } from '../routing/route.js';
import type { ResourceModels } from './models.js';
import type { ChildModel, ResourceModel } from './model.js';
import { humanName, upperFirst } from './names.js';
import { type Operation, tagReads } from './runtime/runtime.js';

/** The verbs of one route file. */
export type RouteFile<V extends string> = { readonly [verb in V]: Route };

/** The route files of one child collection: its list and create, and one child's read and writes. */
export interface ChildRoutes {
  readonly collection: RouteFile<'GET' | 'POST'>;
  readonly item: RouteFile<'GET' | 'PUT' | 'PATCH' | 'DELETE'>;
}

/** The routes of a resource, by the route file that serves them. */
export interface CrudRoutes {
  /** `routes/<name>/index.ts`: the list and the create. */
  readonly collection: RouteFile<'GET' | 'POST'>;
  /** `routes/<name>/[_<key>].ts`: read, update, patch, delete. */
  readonly item: RouteFile<'GET' | 'PUT' | 'PATCH' | 'DELETE'>;
  /** `routes/<name>/[_<key>]/history.ts`. */
  readonly history: RouteFile<'GET'>;
  /** `routes/<name>/[_<key>]/restore.ts`, of a soft-deletable resource only. */
  readonly restore?: RouteFile<'POST'>;
}

/** Names a child collection or an action may not take: the route groups of every resource. */
export const ROUTE_GROUPS: ReadonlySet<string> = new Set(['collection', 'item', 'history', 'restore']);

/**
 * The resource's service for this request: the module made it for the server's store under the resource's key
 * (`call.services.salesOrder`). A resource no module serves is a mistake of the application, said at once.
 */
function serviceIn(services: LayerServices, model: ResourceModel): Record<string, Operation> {
  const service = (services as unknown as Record<string, Record<string, Operation> | undefined>)[model.camel];
  if (!service) throw new Error(`resource ${model.name} has route files but no module serves it: add it to a module's resources`);
  return service;
}

/** Calls an operation of the resource's service with what the route validated. */
const call = (services: LayerServices, model: ResourceModel, method: string, ...args: unknown[]) =>
  (serviceIn(services, model)[method] as (...a: unknown[]) => Promise<Output<unknown>>)(...args);

/** The id route parameter of a record (and of a child), validated by the route's params. */
const idOf = (params: unknown, name: string) => (params as Record<string, number>)[name];

/**
 * How a write of a record, or of one of its children, reads the record's ETag as its GET answers it: the tag that
 * If-Match is compared with and the new one a write answers (contract part 14). `param` names the record's id among
 * the path parameters.
 */
const recordRead = (model: ResourceModel, param: string) => ({ params, services }: { params: unknown; services: LayerServices }) => {
  const service = serviceIn(services, model);
  // The layer's own read: its tag alone is enough (and far cheaper than the record), made from the same versions.
  const tagOnly = tagReads.get(service.read);
  return tagOnly ? tagOnly(idOf(params, param)) : call(services, model, 'read', idOf(params, param));
};

/**
 * The route files' verbs of a resource, made from its declaration: each names its permission (`<name>.read`, …;
 * every child write is an update of the record), the scopes the runtime applies, the operation the proxy and the
 * document know it by, its inputs' structs and its result's, the statuses it answers.
 */
export function routesOf(model: ResourceModel, models: ResourceModels): CrudRoutes & Readonly<Record<string, ChildRoutes | RouteFile<'POST'>>> {
  const { permissions, entity } = model;
  const noun = entity.toLowerCase();
  const scopes = {
    ...(model.scopes && Object.keys(model.scopes).length ? { scopes: Object.keys(model.scopes) } : {}),
    ...(model.tenant ? { tenant: true } : {}),
  };
  const operation = (method: string) => `I${model.pascal}Service.${method}` as const;
  const item = (id: string) => `/${model.name}/${id}`;
  const key = model.param;
  const unique = model.fields.some((f) => f.spec.unique);
  const children = model.children.map((c) => c.property).join(' and ');

  const routes: Record<string, unknown> = {
    collection: {
      GET: route({
        summary: `List ${noun} records matching the criteria.`, permission: permissions.read, ...scopes, operation: operation('readList'),
        query: models.criteria, result: array(models.listItem), csv: { filename: `${model.name}.csv` },
        handle: ({ query, services }) => call(services, model, 'readList', query),
      }),
      POST: route({
        summary: `Create a ${noun}${children ? `, with its ${children} (all stored or none)` : ''}.`,
        permission: permissions.create, ...scopes, operation: operation('create'), body: models.create, result: models.createResult,
        ...(unique ? { answers: [409] as ExtraStatus[] } : {}),
        // A whole document: up to Documents:MaxLines children of at most their bytes each; more is a 413 before it is parsed.
        ...(model.children.length ? { maxBody: documentBody(models.children[model.children[0].property].item, Math.max(...model.children.map((c) => models.children[c.property].bytes))) } : {}),
        async handle({ body, services, created }) {
          const output = await call(services, model, 'create', body) as Output<Record<string, number>>;
          if (output.result) created(item(String(output.result[model.key])));
          return output;
        },
      }),
    },
    item: {
      GET: route({
        summary: `Read one ${noun}.`, permission: permissions.read, ...scopes, operation: operation('read'),
        params: models.key, result: models.read, answers: [404], etag: 'result',
        handle: ({ params, services }) => call(services, model, 'read', idOf(params, key)),
      }),
      PUT: route({
        summary: `Update a ${noun}: optional fields left out are cleared (PUT replaces); a stale revisionNumber is a 409.`,
        permission: permissions.update, ...scopes, operation: operation('update'),
        params: models.key, body: models.update, result: models.updateResult, answers: [404, 409], etag: recordRead(model, key),
        handle: ({ params, body, services }) => call(services, model, 'update', idOf(params, key), body),
      }),
      PATCH: route({
        summary: 'Change only the fields the body names (JSON merge patch; null clears an optional field); a stale revisionNumber is a 409.',
        permission: permissions.update, ...scopes, operation: operation('patch'),
        params: models.key, body: models.patch, result: models.updateResult, answers: [404, 409], etag: recordRead(model, key),
        handle: ({ params, body, services }) => call(services, model, 'patch', idOf(params, key), body),
      }),
      DELETE: route({
        summary: model.softDelete
          ? `Mark a ${noun} deleted${children ? ` (its ${children} kept)` : ''}: restorable by POST …/restore; while other records refer to it, a 409 Entity_InUse.`
          : `Delete a ${noun}${children ? ` with its ${children}` : ''}; while other records refer to it, a 409 Entity_InUse.`,
        permission: permissions.delete, ...scopes, operation: operation('delete'),
        params: models.key, query: modelQuery(models.deleteQuery), answers: [404, 409], etag: recordRead(model, key),
        handle: ({ params, query, services }) => call(services, model, 'delete', idOf(params, key), (query as { revisionNumber?: number }).revisionNumber),
      }),
    },
    history: {
      GET: route({
        summary: `The ${noun}'s change history, newest first: when, who, the operation and each changed field's old and new value; `
          + `paged by skip and take. A deleted ${noun}'s history is readable with ${permissions.delete}.`,
        permission: permissions.read, ...scopes, operation: operation('history'),
        params: models.key, query: historyQuery, result: array(models.historyEntry), answers: [404],
        handle: ({ params, query, services }) => call(services, model, 'history', idOf(params, key), query),
      }),
    },
  };
  if (model.softDelete) {
    routes.restore = {
      POST: route({
        summary: `Restore a deleted ${noun}: a 404 when it is not deleted, a 409 Entity_Duplicate when a unique value of it was taken meanwhile.`,
        permission: permissions.delete, ...scopes, operation: operation('restore'),
        params: models.key, body: models.restore, result: models.updateResult, answers: [404, 409],
        handle: ({ params, body, services }) => call(services, model, 'restore', idOf(params, key), body ?? {}),
      }),
    };
  }
  for (const child of model.children) routes[child.property] = childRoutes(model, child, models, scopes, operation);
  // Each under its key (`routes.markPaid`), served where its route file `<path>.ts` is (`mark-paid.ts`).
  for (const [name, action] of Object.entries(model.actions)) {
    routes[name] = {
      POST: route({
        summary: action.summary ?? `${humanName(name)} a ${noun}; a stale revisionNumber is a 409.`,
        permission: action.permission, ...scopes, operation: operation(name),
        params: models.key, body: models.actions[name], result: models.updateResult, answers: [404, 409],
        handle: ({ params, body, services }) => call(services, model, name, idOf(params, key), body),
      }),
    };
  }
  return routes as CrudRoutes & Record<string, ChildRoutes | RouteFile<'POST'>>;
}

function childRoutes(
  model: ResourceModel, child: ChildModel, models: ResourceModels, scopes: { scopes?: string[]; tenant?: boolean }, operation: (method: string) => `${string}.${string}`,
): ChildRoutes {
  const m = models.children[child.property];
  const { permissions } = model;
  const { property, itemPascal, key } = child;
  const parent = model.param;
  const noun = child.entity.toLowerCase();
  const of = `of a ${model.entity.toLowerCase()}`;
  const changes = `answers the ${model.entity.toLowerCase()}'s new totals and revision; a stale revisionNumber (the ${model.entity.toLowerCase()}'s) is a 409`;
  const deleteQuery: QuerySchema<unknown> = modelQuery(m.deleteQuery);
  return {
    collection: {
      GET: route({
        summary: `List the ${property} ${of}, by ${key}.`, permission: permissions.read, ...scopes, operation: operation(`read${upperFirst(property)}`),
        params: models.key, result: array(m.read), answers: [404],
        handle: ({ params, services }) => call(services, model, `read${upperFirst(property)}`, idOf(params, parent)),
      }),
      POST: route({
        summary: `Add a ${noun}: ${changes}.`, permission: permissions.update, ...scopes, operation: operation(`create${itemPascal}`),
        params: models.key, body: m.update, result: m.write, answers: [404, 409], etag: recordRead(model, parent),
        async handle({ params, body, services, created }) {
          const id = idOf(params, parent);
          const output = await call(services, model, `create${itemPascal}`, id, body) as Output<Record<string, number>>;
          if (output.result?.[key]) created(`/${model.name}/${id}/${child.path}/${output.result[key]}`);
          return output;
        },
      }),
    },
    item: {
      GET: route({
        summary: `Read one ${noun}; a ${noun} of another ${model.entity.toLowerCase()} is a 404.`, permission: permissions.read, ...scopes,
        operation: operation(`read${itemPascal}`), params: m.key, result: m.read, answers: [404],
        handle: ({ params, services }) => call(services, model, `read${itemPascal}`, idOf(params, parent), idOf(params, child.param)),
      }),
      PUT: route({
        summary: `Replace a ${noun}: ${changes}.`, permission: permissions.update, ...scopes, operation: operation(`update${itemPascal}`),
        params: m.key, body: m.update, result: m.write, answers: [404, 409], etag: recordRead(model, parent),
        handle: ({ params, body, services }) => call(services, model, `update${itemPascal}`, idOf(params, parent), idOf(params, child.param), body),
      }),
      PATCH: route({
        summary: `Change only the ${noun} fields the body names (JSON merge patch): ${changes}.`, permission: permissions.update, ...scopes,
        operation: operation(`patch${itemPascal}`), params: m.key, body: m.patch, result: m.write, answers: [404, 409], etag: recordRead(model, parent),
        handle: ({ params, body, services }) => call(services, model, `patch${itemPascal}`, idOf(params, parent), idOf(params, child.param), body),
      }),
      DELETE: route({
        summary: `Remove a ${noun}; the query parameter revisionNumber (the ${model.entity.toLowerCase()}'s, optional) is checked: a stale one is a 409.`,
        permission: permissions.update, ...scopes, operation: operation(`delete${itemPascal}`),
        params: m.key, query: deleteQuery, result: m.write, answers: [404, 409], etag: recordRead(model, parent),
        handle: ({ params, query, services }) => call(services, model, `delete${itemPascal}`, idOf(params, parent), idOf(params, child.param),
          (query as { revisionNumber?: number }).revisionNumber),
      }),
    },
  };
}
