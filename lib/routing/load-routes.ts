import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Verb, VERBS } from '../http-verbs.js';
import { covers, parseGrant } from '../auth/permissions.js';
import { DEFAULT_ROLES } from '../config/schema.js';
import { type LoadedRoute, type Route, isRoute } from './route.js';

export type { LoadedRoute } from './route.js';

/** A route file that does not follow the conventions; startup stops with this message. */
export class RouteFileError extends Error {
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(`routes/${file}: ${problem}`, options);
    this.name = 'RouteFileError';
  }
}

const isRouteFile = (name: string) => /\.(js|ts)$/.test(name) && !/\.d\.ts$/.test(name) && !name.startsWith('_') && !name.startsWith('.');

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name.startsWith('_') ? [] : listFiles(full);
    return isRouteFile(name) ? [full] : [];
  });
}

/** `sales-order/[_salesOrderId].ts` → `/sales-order/:_salesOrderId`; `index` serves its folder. */
export function routePath(file: string): string {
  const segments = file.replace(/\.(js|ts)$/, '').split(sep);
  if (segments[segments.length - 1] === 'index') segments.pop();
  return '/' + segments.map((segment) => {
    const param = /^\[([A-Za-z_$][\w$]*)\]$/.exec(segment);
    if (param) return `:${param[1]}`;
    if (!/^[a-z0-9][a-z0-9._~-]*$/.test(segment)) throw new RouteFileError(file, `"${segment}" is not a valid path segment (lower-case letters, digits, -._~ or [param])`);
    return segment;
  }).join('/');
}

/** The paths the route files of `dir` serve (`/auth/cookie`, `/lookup-table/:type`), from their names alone: nothing is loaded. */
export function routePathsOf(dir: string): string[] {
  return listFiles(dir).map((full) => routePath(relative(dir, full)));
}

function paramNames(path: string): string[] {
  return [...path.matchAll(/:([\w$]+)/g)].map((m) => m[1]);
}

function check(file: string, path: string, verb: Verb, route: Route) {
  const names = paramNames(path);
  const schemaKeys = Object.keys((route.params as { schema?: object } | undefined)?.schema ?? {});
  if (names.length && !route.params) throw new RouteFileError(file, `${verb} needs a params schema for ${names.map((n) => `:${n}`).join(', ')}`);
  if (route.params && (schemaKeys.length !== names.length || !names.every((n) => schemaKeys.includes(n)))) {
    throw new RouteFileError(file, `${verb}'s params schema (${schemaKeys.join(', ')}) does not match the path parameters (${names.join(', ')})`);
  }
  if ((verb === 'POST' || verb === 'PUT' || verb === 'PATCH') && !route.body) throw new RouteFileError(file, `${verb} needs a body schema`);
  if ((verb === 'GET' || verb === 'DELETE') && route.body) throw new RouteFileError(file, `${verb} cannot take a body`);
  if (typeof route.handle !== 'function') throw new RouteFileError(file, `${verb} has no handle function`);
  checkMaxBody(file, verb, route);
  if (route.anonymous !== undefined && route.anonymous !== true) throw new RouteFileError(file, `${verb}: anonymous must be true or absent`);
  if (route.identifies !== undefined && (route.identifies !== true || !route.anonymous)) throw new RouteFileError(file, `${verb}: identifies must be true, and only on an anonymous route`);
  if (route.documentation !== undefined && route.documentation !== true) throw new RouteFileError(file, `${verb}: documentation must be true or absent`);
  if (route.anonymous && route.documentation) {
    throw new RouteFileError(file, `${verb}: a documentation route is anonymous only when RestAPI:PublicDocs says so; drop anonymous`);
  }
  checkAccess(file, verb, route);
}

/** `maxBody`: only with a body; a function (of the configuration), or whole numbers of bytes and items above zero. */
function checkMaxBody(file: string, verb: Verb, route: Route) {
  const { maxBody } = route;
  if (maxBody === undefined) return;
  if (!route.body) throw new RouteFileError(file, `${verb}: maxBody limits a body; this route takes none`);
  if (typeof maxBody === 'function') return;
  const wrong = typeof maxBody !== 'object' || maxBody === null
    || Object.entries(maxBody).some(([key, n]) => !['bytes', 'items'].includes(key) || (n !== undefined && !(Number.isSafeInteger(n) && n > 0)));
  if (wrong) throw new RouteFileError(file, `${verb}: maxBody must be { bytes?, items? } of whole numbers above 0, or a function of the configuration answering one`);
}

/** A permission a route names: `<service>.<operation>` (lower-case words), no wildcard. */
const PERMISSION_NAME = /^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/;
const SCOPE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** Every route says who may call it (contract part 10): secured by default means a permission, unless it says otherwise. */
function checkAccess(file: string, verb: Verb, route: Route) {
  const open = route.anonymous || route.documentation;
  if (route.authenticated !== undefined && route.authenticated !== true) throw new RouteFileError(file, `${verb}: authenticated must be true or absent`);
  if (route.permission !== undefined) {
    if (typeof route.permission !== 'string' || !PERMISSION_NAME.test(route.permission)) {
      throw new RouteFileError(file, `${verb}: permission ${JSON.stringify(route.permission)} is not a permission name (service.operation, e.g. sales-order.read)`);
    }
    if (open || route.authenticated) {
      throw new RouteFileError(file, `${verb}: a permission together with ${route.anonymous ? 'anonymous' : route.documentation ? 'documentation' : 'authenticated'} says two things; keep one`);
    }
  } else if (!open && !route.authenticated) {
    throw new RouteFileError(file, `${verb} names no permission: add permission: '<service>.<operation>' (e.g. sales-order.read), `
      + 'or authenticated: true for any signed-in caller, or anonymous: true');
  }
  if (route.authenticated && open) throw new RouteFileError(file, `${verb}: authenticated together with ${route.anonymous ? 'anonymous' : 'documentation'} says two things; keep one`);
  if (route.scopes !== undefined) {
    if (route.permission === undefined) throw new RouteFileError(file, `${verb}: scopes limit a permission; this route names none`);
    if (!Array.isArray(route.scopes) || route.scopes.some((s) => typeof s !== 'string' || !SCOPE_NAME.test(s))) {
      throw new RouteFileError(file, `${verb}: scopes must be a list of scope names (e.g. ['own'])`);
    }
  }
  if (route.operator !== undefined && route.permission === undefined) {
    throw new RouteFileError(file, `${verb}: a route an operator token may call (operator) names the permission of its other callers`);
  }
}

/**
 * Imports every route file below `dirs` and checks its exports: only verbs, each made with `route()`, with the
 * schemas its path and verb need; no two files of any of the folders serve the same verb and path. Static paths come
 * before parameterised ones so `/a/new` wins over `/a/:id`.
 */
export async function loadRoutes(dirs: string | readonly string[]): Promise<LoadedRoute[]> {
  const routes: LoadedRoute[] = [];
  const served = new Map<string, { file: string; full: string; path: string }>();
  const files = (typeof dirs === 'string' ? [dirs] : dirs).flatMap((dir) => listFiles(dir).sort().map((full) => ({ dir, full })));
  for (const { dir, full } of files) {
    const file = relative(dir, full);
    const path = routePath(file);
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(full).href)) as Record<string, unknown>;
    } catch (err) {
      // A syntax error or a throw at import time says nothing about which file it came from.
      throw new RouteFileError(file, `cannot be loaded: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const names = Object.keys(exports);
    if (!names.length) throw new RouteFileError(file, 'exports no verb (GET, POST, PUT, PATCH, DELETE)');
    for (const name of names) {
      if (!(VERBS as readonly string[]).includes(name)) throw new RouteFileError(file, `exports "${name}", which is not a verb (${VERBS.join(', ')})`);
      const value = exports[name];
      if (!isRoute(value)) throw new RouteFileError(file, `${name} must be made with route({ ... })`);
      check(file, path, name as Verb, value);
      // `a.ts` and `a/index.ts`, or `[id].ts` and `[key].ts` side by side, would both serve the same requests.
      const shape = `${name} ${path.replace(/:[\w$]+/g, ':')}`;
      const other = served.get(shape);
      // The other file may be in another folder (the layer's own routes): its full path says which.
      if (other) throw new RouteFileError(file, `${name} ${path} is also served by ${other.full} (${other.path})`);
      served.set(shape, { file, full, path });
      routes.push({ file, path, verb: name as Verb, route: value });
    }
  }
  const rank = (path: string) => path.split('/').map((s) => (s.startsWith(':') ? '1' : '0')).join('');
  return routes.sort((a, b) => rank(a.path).localeCompare(rank(b.path)) || a.path.localeCompare(b.path));
}

/** A role's grant that a route cannot honour; startup stops with this message. */
export class RoleGrantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RoleGrantError';
  }
}

/**
 * Refuses a role that grants a permission limited to a record scope which a route of that permission does not apply
 * (it lists the scopes it applies in `scopes`): the route would give that role every record. `roles` is
 * `Authorization:Roles`, already checked for syntax by the configuration.
 */
export function checkRoleScopes(routes: readonly LoadedRoute[], roles: Readonly<Record<string, readonly string[]>>): void {
  const problems: string[] = [];
  for (const [role, grants] of Object.entries(roles)) {
    for (const text of grants) {
      const grant = parseGrant(text);
      if (grant?.scope === undefined) continue;
      for (const { file, verb, path, route } of routes) {
        if (!route.permission || !covers(grant, route.permission) || route.scopes?.includes(grant.scope)) continue;
        problems.push(`Authorization:Roles:${role}: "${text}" limits ${route.permission} to the scope ${grant.scope}, which ${verb} ${path} (routes/${file}) `
          + `does not apply (its scopes: ${route.scopes?.length ? route.scopes.join(', ') : 'none'}); grant it without the scope or add the scope to the route`);
      }
    }
  }
  if (problems.length) throw new RoleGrantError(problems.join('; '));
}

/**
 * The grants of `Authorization:Roles` that match no permission any route names (`sales-order.raed`, a service's name
 * mistyped, three segments): each grants nothing, which is safe but surely not meant. Startup and `restlayer config
 * check` warn about them, naming the role and the grant. A role left at its default is not checked: the defaults
 * name the sample's services, which a team's own application may not serve.
 */
export function grantsMatchingNothing(routes: readonly LoadedRoute[], roles: Readonly<Record<string, readonly string[]>>): string[] {
  const permissions = [...new Set(routes.flatMap(({ route }) => (route.permission ? [route.permission] : [])))];
  const warnings: string[] = [];
  for (const [role, grants] of Object.entries(roles)) {
    if (JSON.stringify(grants) === JSON.stringify(DEFAULT_ROLES[role])) continue;
    for (const text of grants) {
      const grant = parseGrant(text);
      if (grant && !permissions.some((permission) => covers(grant, permission))) {
        warnings.push(`Authorization:Roles:${role}: "${text}" matches no permission of this server's routes; it grants nothing`);
      }
    }
  }
  return warnings;
}
