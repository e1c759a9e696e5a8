import { fileURLToPath } from 'node:url';
import { type LoadedRoute, loadRoutes } from './load-routes.js';

/**
 * The layer's own route files (login, logout and refresh, health, lookup tables, the OpenAPI document): every
 * application serves them, whether it runs from this project or has restlayer as a dependency.
 */
export const layerRoutesDir = fileURLToPath(new URL('../layer-routes/', import.meta.url));

/** What a server of `application` serves: the layer's routes and the application's own, loaded and checked together. */
export function applicationRoutes(application: { routesDir: string }): Promise<LoadedRoute[]> {
  return loadRoutes([layerRoutesDir, application.routesDir]);
}
