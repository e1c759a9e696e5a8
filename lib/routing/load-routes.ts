import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Verb, VERBS } from '../http-verbs.js';
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
  if (route.anonymous !== undefined && route.anonymous !== true) throw new RouteFileError(file, `${verb}: anonymous must be true or absent`);
  if (route.identifies !== undefined && (route.identifies !== true || !route.anonymous)) throw new RouteFileError(file, `${verb}: identifies must be true, and only on an anonymous route`);
  if (route.documentation !== undefined && route.documentation !== true) throw new RouteFileError(file, `${verb}: documentation must be true or absent`);
  if (route.anonymous && route.documentation) {
    throw new RouteFileError(file, `${verb}: a documentation route is anonymous only when RestAPI:PublicDocs says so; drop anonymous`);
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
