import { type LoadedRoute, checkRoleScopes, loadRoutes } from './load-routes.js';
import { layerPath } from '../package-paths.js';

/**
 * The layer's own route files (login, logout and refresh, health, lookup tables, the OpenAPI document): every
 * application serves them, whether it runs from this project or has restlayer as a dependency.
 */
export const layerRoutesDir = layerPath('layer-routes');

/**
 * What a server of `application` serves: the layer's routes and the application's own, loaded and checked together;
 * with `roles` (`Authorization:Roles`), also that every scoped grant is one the routes of its permissions apply.
 */
export async function applicationRoutes(application: { routesDir: string }, roles?: Readonly<Record<string, readonly string[]>>): Promise<LoadedRoute[]> {
  const routes = await loadRoutes([layerRoutesDir, application.routesDir]);
  if (roles) checkRoleScopes(routes, roles);
  return routes;
}
