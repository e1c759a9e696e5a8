import { applyWebDefaults } from '../http/web-app.js';
import { documentedPath } from '../openapi/document.js';
import { applicationRoutes } from '../routing/application-routes.js';
import type { LoadedRoute } from '../routing/route.js';
import { type AccessSettings, isAnonymous, routeAccess } from '../routing/route-access.js';
import { cliApplication } from './application-context.js';
import { configOrFail } from './config-context.js';
import { printJson } from './print-json.js';
import { line } from './terminal-text.js';

/** One served route as `restlayer routes` lists it. */
export interface RouteListing {
  verb: string;
  /** Under RestAPI:Path, parameters as in the OpenAPI document (`/sales-order/{salesOrderId}`). */
  path: string;
  /** The permission the route needs, or `anonymous` (anyone) or `authenticated` (any signed-in caller). */
  permission: string;
  /**
   * The record scopes the route applies to a caller whose permission is limited to one, and `tenant` when tenancy is
   * on and the route serves a tenant-owned resource (every caller is limited to its tenant); empty: none.
   */
  scopes: string[];
}

/** What the server of this configuration serves, and who may call each route; the other variant's routes are left out. */
export function routeListing(routes: readonly LoadedRoute[], settings: AccessSettings, prefix: string, tenancy = false): RouteListing[] {
  return routes.flatMap(({ path, verb, route }) => {
    const access = routeAccess(route, verb, settings);
    if (!access.served) return [];
    const permission = access.permission ?? (isAnonymous(route, settings.publicDocs) ? 'anonymous' : 'authenticated');
    const scopes = [...(tenancy && route.tenant ? ['tenant'] : []), ...(route.scopes ?? [])];
    return [{ verb, path: prefix + documentedPath(path), permission, scopes }];
  }).sort((a, b) => a.path.localeCompare(b.path) || a.verb.localeCompare(b.verb));
}

/** Columns padded to their widest entry, so a reader's eye runs down each. */
function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd());
}

/** `restlayer routes` (declared in commands.ts). */
export async function listRoutes(opts: { json?: boolean }): Promise<void> {
  const { config } = configOrFail();
  // As `serve` does: with the browser app on (Web:Enabled) and no RestAPI:Path, the API is served under /api.
  applyWebDefaults(config);
  // As the server checks them at startup, scoped grants included.
  const routes = await applicationRoutes(await cliApplication(), config.Authorization.Roles);
  const listing = routeListing(routes, { variant: config.Authentication.Variant, publicDocs: config.RestAPI.PublicDocs }, config.RestAPI.Path, config.Tenancy.Enabled);
  if (opts.json) return printJson(listing);
  const rows = [['VERB', 'PATH', 'PERMISSION', 'SCOPES'], ...listing.map((r) => [r.verb, r.path, r.permission, r.scopes.join(',')])];
  for (const row of table(rows)) process.stdout.write(line`${row}`);
}
