import { fileURLToPath } from 'node:url';
import { type Application, type ServicesOf, routeFor } from 'restlayer';
import { salesOrderModule } from './sales-order/module.js';
import { customerModule } from './customer/module.js';

/** The application's business services: the one place a new module is registered. Order is migration order. */
export const modules = [salesOrderModule, customerModule] as const;

/** Every service a route can reach: the layer's own (lookup, login, users, tokens…) and each module's. */
export type AppServices = ServicesOf<typeof modules>;

/** Route files declare their verbs with this `route`, so `call.services` knows every module's services. */
export const route = routeFor<AppServices>();

/** What `restlayer serve` runs: these modules and the route files under routes/. */
export const application: Application = { modules, routesDir: fileURLToPath(new URL('../routes/', import.meta.url)) };
