// The server of bench/stall.js: restlayer from dist/ (configured by the environment, like `restlayer serve`) with
// the layer's routes plus the routes folder given as argument, which holds the slow read.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { projectRoot } from './lib/setup.js';

const built = (path) => import(pathToFileURL(join(projectRoot, 'dist', path)).href);
const { loadConfig } = await built('lib/config/load.js');
const { createLogger } = await built('lib/log.js');
const { startServer } = await built('lib/server.js');
const { application } = await built('services/index.js');

const { config } = loadConfig({ env: process.env });
const log = createLogger(config.Log.Level);
// The slow route reads the store itself: a module of this bench gives it as `services.stallStorage`.
const stallStore = { name: 'stall-store', create: ({ storage }) => ({ stallStorage: storage }) };
const running = await startServer({ application: { modules: [...application.modules, stallStore], routesDir: process.argv[2] }, config, log, port: 0, host: '127.0.0.1' });
process.stdout.write(`stall server serving ${running.url}\n`);
process.once('SIGTERM', () => running.close().then(() => process.exit(0)));
