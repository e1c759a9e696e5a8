// The CLI of an application that serves the slow-read test routes besides the sample's: `serve --workers N` of it
// runs them in every worker.
import { runCli } from 'restlayer';
import { application } from '../../services/index.js';
import { slowReadRoutesDir } from './api.js';

await runCli({ ...application, routesDir: slowReadRoutesDir });
