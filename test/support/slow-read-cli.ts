// The CLI of an application that serves the slow-read test routes besides the sample's: `serve --workers N` of it
// runs them in every worker. The routes reach the store through the test's probe module (probe-store-module.ts).
import { runCli } from 'restlayer';
import { application } from '../../services/index.js';
import { slowReadRoutesDir } from './api.js';
import { probeStoreModule } from './probe-store-module.js';

await runCli({ modules: [...application.modules, probeStoreModule], routesDir: slowReadRoutesDir });
