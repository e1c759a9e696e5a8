// The CLI of an application that serves the caller-attributes probe route (attribute-routes/): `serve --workers N`
// of it runs the route in every worker, so a test sees what each worker hands its handlers as `principal.attributes`.
import { fileURLToPath } from 'node:url';
import { runCli } from 'restlayer';
import { application } from '../../services/index.js';
import { probeStoreModule } from './probe-store-module.js';

await runCli({ modules: [...application.modules, probeStoreModule], routesDir: fileURLToPath(new URL('./attribute-routes/', import.meta.url)) });
