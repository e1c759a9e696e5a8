import type { Struct } from 'superstruct';
import type { Principal } from '../auth/principal.js';
import type { Output } from '../envelope/output.js';
import type { ValidationResult } from '../validation/validate.js';
import type { Services } from '../../services/services.js';
import type { ServerDescription } from '../http/context.js';

export const VERBS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Verb = (typeof VERBS)[number];

/** A query-string parser that reports every problem, like the criteria of list operations. */
export interface QuerySchema<Q> {
  parse(search: URLSearchParams): ValidationResult<Q>;
}

/** What a handler gets: validated inputs, the services, the caller, and the few HTTP facts an operation may set. */
export interface RouteCall<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  services: Services;
  /** The configuration and route table the server runs with. */
  server: ServerDescription;
  principal: Principal | undefined;
  /** Answer 201 with `Location` (a path below the API prefix) when the operation succeeds. */
  created(path: string): void;
  /** Set a response header, such as an ETag; a GET whose ETag matches If-None-Match answers 304. */
  header(name: string, value: string): void;
  /** The caller's address (from X-Forwarded-For only when Server:TrustProxy is set). */
  clientAddress: string;
  /** Cookie login (variant A): starts a fresh session (new id) for the user. */
  signIn(user: SignedInUser): Promise<void>;
  /** Ends the cookie session, if any. */
  signOut(): Promise<void>;
}

export interface SignedInUser {
  userName: string;
  name: string;
  roles: string[];
}

export interface RouteSpec<P, Q, B, R> {
  /** Routes are secured unless this says otherwise. */
  anonymous?: true;
  /**
   * A route that describes the API (`/openapi.json`, a `/docs` page): anonymous when `RestAPI:PublicDocs` is true,
   * secured like any route when it is false. Not together with `anonymous`.
   */
  documentation?: true;
  /** When given, the caller needs one of these roles. */
  roles?: readonly string[];
  summary: string;
  /** The service operation this verb exposes, e.g. `ISalesOrderService.read`; proxies and the OpenAPI document use it. */
  operation?: `${string}.${string}`;
  /** The route exists only under this `Authentication:Variant`. */
  variant?: 'A' | 'B';
  params?: Struct<P, unknown>;
  query?: QuerySchema<Q>;
  body?: Struct<B, unknown>;
  handle(call: RouteCall<P, Q, B>): Promise<Output<R>>;
}

const routeMark = Symbol.for('restlayer.route');

export type Route<P = unknown, Q = unknown, B = unknown, R = unknown> = Readonly<RouteSpec<P, Q, B, R>> & { readonly [routeMark]: true };

/** Declares one verb of a route file: `export const GET = route({ ... })`. */
export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined, R = unknown>(spec: RouteSpec<P, Q, B, R>): Route<P, Q, B, R> {
  return Object.freeze({ ...spec, [routeMark]: true as const });
}

/** Whether `route` answers callers without credentials, given `RestAPI:PublicDocs`. */
export function isAnonymous(route: Pick<RouteSpec<unknown, unknown, unknown, unknown>, 'anonymous' | 'documentation'>, publicDocs: boolean): boolean {
  return route.anonymous === true || (route.documentation === true && publicDocs);
}

export function isRoute(value: unknown): value is Route {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[routeMark] === true;
}
