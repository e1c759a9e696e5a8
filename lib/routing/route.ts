import type { Struct } from 'superstruct';
import type { OperatorAction } from '../auth/operator-action.js';
import type { RoleGrants } from '../auth/permission-grants.js';
import type { Principal } from '../auth/principal.js';
import type { Logger } from '../log.js';
import type { Output } from '../envelope/output.js';
import type { AppConfig } from '../config/schema.js';
import type { Verb } from '../http-verbs.js';
import type { BodyLimit } from '../validation/json-budget.js';
import type { ValidationResult } from '../validation/validate.js';
import type { LayerServices } from './layer-services.js';

export { VERBS, type Verb } from '../http-verbs.js';

/** What the route runner needs on every context (set once on `app.context` by lib/app.ts). */
declare module '../http/context.js' {
  interface AppExtensions {
    /** The layer's services and every module's; a route's own `call.services` is typed with the application's. */
    services: LayerServices;
    /** What the server was started with, for routes that describe the server itself (the OpenAPI document). */
    server: ServerDescription;
  }
}

export interface ServerDescription {
  readonly config: AppConfig;
  readonly routes: readonly LoadedRoute[];
  /** `Authorization:Roles` resolved against the routes' permissions: what a caller with given roles may do. */
  readonly grants: RoleGrants;
  /** The rows a CSV export reads a time on this server's store (its dialect's `exportPageRows`). */
  readonly exportPageRows: number;
}

/** A route as the loader found it (lib/routing/load-routes.ts). */
export interface LoadedRoute {
  /** The route file, relative to the routes folder, for messages. */
  file: string;
  /** Koa-router path, e.g. `/sales-order/:_salesOrderId`. */
  path: string;
  verb: Verb;
  route: Route;
}

/** A query-string parser that reports every problem, like the criteria of list operations. */
export interface QuerySchema<Q> {
  parse(search: URLSearchParams): ValidationResult<Q>;
  /**
   * The `model` whose properties are the parameters it takes (each optional), for the OpenAPI document; list criteria
   * are described from their fields instead.
   */
  readonly model?: Struct<Q, unknown>;
}

/** What a handler gets: validated inputs, the services, the caller, and the few HTTP facts an operation may set. */
export interface RouteCall<P, Q, B, S extends LayerServices = LayerServices> {
  params: P;
  query: Q;
  body: B;
  services: S;
  /** The configuration and route table the server runs with. */
  server: ServerDescription;
  principal: Principal | undefined;
  /** Answer 201 with `Location` (a path below the API prefix) when the operation succeeds. */
  created(path: string): void;
  /** Set a response header, such as an ETag; a GET whose ETag matches If-None-Match answers 304. */
  header(name: string, value: string): void;
  /**
   * The caller's address: the socket's, or with Server:TrustProxy the X-Forwarded-For entry Server:ProxyCount places
   * from the right. Log lines about the caller use this one.
   */
  clientAddress: string;
  /** The server's log, and the id its lines about this request carry. */
  log: Logger;
  requestId: string;
  /** Cookie login (variant A): starts a fresh session (new id) for the user. */
  signIn(user: SignedInUser): Promise<void>;
  /** Ends the cookie session, if any. */
  signOut(): Promise<void>;
}

export interface SignedInUser {
  userName: string;
  name: string;
  roles: string[];
  /** The credential stamp the login checked; the session stops when the user's stamp changes. */
  stamp: string;
  /** The user's tenant at login (attribute `tenantId`): the session's tenant until the next login (contract part 12). */
  tenantId?: string;
}

/**
 * 304: an ETag, and If-None-Match is honoured; 412: If-Match named a tag that is not current; 401 on an anonymous route: the login or refresh refused the
 * credentials; 404: what the path names does not exist; 409: a stale revisionNumber or an entity still in use;
 * 429: throttled, with Retry-After; 503: a store the operation needs is unreachable.
 */
export type ExtraStatus = 304 | 401 | 404 | 409 | 412 | 429 | 503;

/**
 * Any struct: a route's result type (`R`) is what its handler answers, which may be pre-serialised JSON (RawJson)
 * rather than the value the struct describes, so the two are not tied together by type.
 */
export type ResultStruct = Struct<any, any>;

export interface RouteSpec<P, Q, B, R, S extends LayerServices = LayerServices> {
  /** Routes are secured unless this says otherwise. */
  anonymous?: true;
  /**
   * With `anonymous`: credentials the caller sends are still checked, and `principal` is the caller when they are
   * valid (undefined otherwise, never a 401), for a route that answers "who am I" to anyone.
   */
  identifies?: true;
  /**
   * A route that describes the API (`/openapi.json`, a `/docs` page): anonymous when `RestAPI:PublicDocs` is true,
   * secured like any route when it is false. Not together with `anonymous`.
   */
  documentation?: true;
  /**
   * The permission a caller needs (`sales-order.read`; contract part 10): roles grant permissions through
   * `Authorization:Roles`, and a caller without it gets 403 Security_Forbidden. Every route names one unless it is
   * `anonymous`, `documentation` or `authenticated`: startup refuses a route file with none.
   */
  permission?: string;
  /**
   * Any authenticated caller, whatever its permissions (the session, logout): for routes about the caller itself,
   * never for business data.
   */
  authenticated?: true;
  /**
   * The record scopes (lib/storage/record-scope.ts) the operation applies for a caller whose permission is limited
   * to one: `restlayer routes` lists them, and startup refuses a role that grants `permission` with a scope the route
   * does not apply.
   */
  scopes?: readonly string[];
  /**
   * The route serves records of a tenant-owned resource (contract part 12): with `Tenancy:Enabled`, a caller without
   * a tenant gets 403 before anything of the operation runs, and `restlayer routes` lists `tenant` among its scopes.
   * A resource's declared routes say it themselves (its declaration's `tenant`).
   */
  tenant?: boolean;
  /**
   * An action the CLI may do here with an operator token (lib/auth/operator-token.ts) instead of a caller with
   * `permission`: a token for this action and this server's URL, without roles, valid a few seconds.
   */
  operator?: OperatorAction;
  summary: string;
  /** The service operation this verb exposes, e.g. `ISalesOrderService.read`; proxies and the OpenAPI document use it. */
  operation?: `${string}.${string}`;
  /** The route exists only under this `Authentication:Variant`. */
  variant?: 'A' | 'B';
  params?: Struct<P, unknown>;
  query?: QuerySchema<Q>;
  body?: Struct<B, unknown>;
  /**
   * The most this route's body may hold (contract part 2: more is a 413 Request_TooLarge, before it is parsed): its
   * `bytes`, and its `items`, keys and array elements in all. Either may be left out for the default: a secured
   * route's is RestAPI:DefaultBodyBytes and DefaultBodyItems, fit for a record write; an anonymous route's bytes are
   * RestAPI:MaxAnonymousBodyBytes. A function of the configuration sizes it from settings: the create of a declared
   * resource with children takes the default plus Documents:MaxLines children of its largest child's size (set by
   * lib/resources/routes.ts). Never more bytes than RestAPI:MaxBodyBytes (nor, anonymous, than
   * MaxAnonymousBodyBytes). Only with `body`.
   */
  maxBody?: Partial<BodyLimit> | ((config: AppConfig) => Partial<BodyLimit>);
  /**
   * The shape of the envelope's `result` on success (for a list, `array(Item)`), for the OpenAPI document and the
   * clients generated from it; absent when the operation answers no result. Not checked at run time: the OpenAPI
   * tests check real answers against it.
   */
  result?: ResultStruct;
  /**
   * The statuses this operation answers beyond those every route of its kind may (400 for bad input, 401/403 when
   * secured, 413/415 with a body, 500): the document lists exactly these, each with its meaning.
   */
  answers?: readonly ExtraStatus[];
  /**
   * Conditional requests on one record (contract part 14). On a GET that reads one record, `'result'`: the answer
   * carries a strong ETag of its result, and If-None-Match naming it answers 304. On a write of that record (or of one
   * of its children), how to read the record as its GET answers it: If-Match is then checked against that record's
   * ETag (412 Entity_Concurrency when stale, nothing written), atomically with the write, and a successful write other
   * than DELETE answers the record's new ETag.
   */
  etag?: 'result' | ((call: RouteCall<P, Q, B, S>) => Promise<Output<unknown>>);
  /**
   * A list route whose answer may be CSV (contract part 15): with `Accept: text/csv` the list, with the same criteria,
   * sort and scopes, is streamed page by page (by cursor) as `filename`, its columns the result item's properties.
   * The route's query must be list criteria that take `cursor`.
   */
  csv?: { filename: string };
  handle(call: RouteCall<P, Q, B, S>): Promise<Output<R>>;
}

const routeMark = Symbol.for('restlayer.route');

export type Route<P = unknown, Q = unknown, B = unknown, R = unknown, S extends LayerServices = LayerServices> =
  Readonly<RouteSpec<P, Q, B, R, S>> & { readonly [routeMark]: true };

/** Declares one verb of a route file that needs only the layer's services: `export const GET = route({ ... })`. */
export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined, R = unknown>(spec: RouteSpec<P, Q, B, R>): Route<P, Q, B, R> {
  return Object.freeze({ ...spec, [routeMark]: true as const });
}

/**
 * A `route` whose handlers see the application's services (`ServicesOf<typeof modules>`): the application makes it
 * once, next to its module list, and its route files use it.
 */
export function routeFor<S extends LayerServices>() {
  return <P = Record<string, never>, Q = Record<string, never>, B = undefined, R = unknown>(spec: RouteSpec<P, Q, B, R, S>): Route<P, Q, B, R, S> =>
    Object.freeze({ ...spec, [routeMark]: true as const });
}

export function isRoute(value: unknown): value is Route {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[routeMark] === true;
}
