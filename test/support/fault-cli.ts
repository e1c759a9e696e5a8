// The CLI of an application that serves the fault tests' held write (fault-routes/held-write.ts) besides the sample's
// sales-order routes: `serve --workers N` of it runs them in every worker.
import { runCli } from 'restlayer';
import { application } from '../../services/index.js';
import { faultRoutesDir } from './api.js';

await runCli({ modules: application.modules, routesDir: faultRoutesDir });
