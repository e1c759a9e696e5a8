import type { OperatorAction } from '../auth/operator-action.js';
import type { AppConfig } from '../config/schema.js';
import type { Verb } from '../http-verbs.js';
import type { BodyLimit } from '../validation/json-budget.js';
import type { RouteSpec } from './route.js';

/** The settings that change what a route's options mean. */
export interface AccessSettings {
  /** `Authentication:Variant`: routes of the other variant do not exist. */
  variant: 'A' | 'B';
  /** `RestAPI:PublicDocs`: whether documentation routes are anonymous. */
  publicDocs: boolean;
}

type AccessOptions = Pick<RouteSpec<unknown, unknown, unknown, unknown>, 'anonymous' | 'identifies' | 'documentation' | 'permission' | 'operator' | 'variant' | 'body'>;

/**
 * What a route's options mean, computed once for both readers: the router builds the route's middleware chain from
 * it (lib/app.ts) and the OpenAPI document states the same security and statuses (lib/openapi/document.ts). A new
 * access option goes here, and both follow.
 */
export interface RouteAccess {
  /** False when the route belongs to the other `Authentication:Variant`: it is not served (404) nor documented. */
  served: boolean;
  /**
   * Who gets in: `anyone` (anonymous), `identify` (anonymous, but valid credentials make the caller the principal),
   * `caller` (a caller holding `permission`, when the route names one), `operator` (such a caller, or an operator
   * token for `operator`).
   */
  gate: 'anyone' | 'identify' | 'caller' | 'operator';
  /** The permission the gate requires of a caller; undefined on anonymous routes and those for any authenticated caller. */
  permission?: string;
  operator?: OperatorAction;
  /** The answer varies by caller on an anonymous route: it must not be cached by shared caches. */
  privateAnswer: boolean;
  /** Which body limits apply (bodyLimitOf): anonymous callers get the small one (RestAPI:MaxAnonymousBodyBytes). */
  bodyLimit?: 'anonymous' | 'secured';
  /** Idempotency-Key is honoured: secured POSTs, after the body is read. */
  idempotencyKey: boolean;
  /** Bearer token (and in variant A the session cookie) required: the document's `security`. */
  secured: boolean;
  /** What the gate itself may answer: 401 without valid credentials, 403 for a missing permission or a cross-site change. */
  gateStatuses: readonly (401 | 403)[];
}

const unsafe = new Set<Verb>(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether `route` answers callers without credentials, given `RestAPI:PublicDocs`. */
export function isAnonymous(route: Pick<AccessOptions, 'anonymous' | 'documentation'>, publicDocs: boolean): boolean {
  return route.anonymous === true || (route.documentation === true && publicDocs);
}

export function routeAccess(route: AccessOptions, verb: Verb, settings: AccessSettings): RouteAccess {
  const anonymous = isAnonymous(route, settings.publicDocs);
  const permission = anonymous ? undefined : route.permission;
  const gate = route.operator ? 'operator' : anonymous ? (route.identifies ? 'identify' : 'anyone') : 'caller';
  // 403: a permission the caller lacks, or (variant A) a cookie caller's unsafe request from another origin.
  const forbidden = !anonymous && (permission !== undefined || (settings.variant === 'A' && unsafe.has(verb)));
  return {
    served: !route.variant || route.variant === settings.variant,
    gate,
    ...(permission ? { permission } : {}),
    ...(route.operator ? { operator: route.operator } : {}),
    privateAnswer: gate === 'identify',
    ...(route.body ? { bodyLimit: anonymous ? 'anonymous' as const : 'secured' as const } : {}),
    idempotencyKey: verb === 'POST' && !anonymous,
    secured: !anonymous,
    gateStatuses: anonymous ? [] : forbidden ? [401, 403] : [401],
  };
}

/**
 * The body limit a route reads with (lib/http/body.ts): its own `maxBody` where it gives one, else the defaults (a
 * secured route: RestAPI:DefaultBodyBytes; an anonymous one: RestAPI:MaxAnonymousBodyBytes; both
 * RestAPI:DefaultBodyItems), its bytes never above RestAPI:MaxBodyBytes (nor, anonymous, MaxAnonymousBodyBytes).
 */
export function bodyLimitOf(
  route: Pick<RouteSpec<unknown, unknown, unknown, unknown>, 'maxBody'>, kind: 'anonymous' | 'secured', config: AppConfig,
): BodyLimit {
  const api = config.RestAPI;
  const own = typeof route.maxBody === 'function' ? route.maxBody(config) : route.maxBody ?? {};
  const ceiling = kind === 'anonymous' ? Math.min(api.MaxBodyBytes, api.MaxAnonymousBodyBytes) : api.MaxBodyBytes;
  const bytes = own.bytes ?? (kind === 'anonymous' ? api.MaxAnonymousBodyBytes : api.DefaultBodyBytes);
  const limit = { bytes: Math.min(bytes, ceiling), items: own.items ?? api.DefaultBodyItems };
  // A maxBody function answers at startup: a wrong answer stops it, as a wrong route file does.
  if (!Object.values(limit).every((n) => Number.isSafeInteger(n) && n > 0)) throw new Error(`maxBody answered ${JSON.stringify(own)}: bytes and items must be whole numbers above 0`);
  return limit;
}

/** Every permission the routes name, each once: what the server resolves roles against. */
export function permissionNames(routes: readonly { route: Pick<RouteSpec<unknown, unknown, unknown, unknown>, 'permission'> }[]): string[] {
  return [...new Set(routes.flatMap(({ route }) => (route.permission ? [route.permission] : [])))].sort();
}
