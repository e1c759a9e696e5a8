import { fileURLToPath } from 'node:url';
import { type Application, type ServicesOf, routeFor } from 'restlayer';
import { noteModule } from './note/module.js';

export const modules = [noteModule] as const;
export type AppServices = ServicesOf<typeof modules>;

/** Route files declare their verbs with this `route`: `call.services` has the layer's services and `note`. */
export const route = routeFor<AppServices>();

export const application: Application = { modules, routesDir: fileURLToPath(new URL('./routes/', import.meta.url)) };
