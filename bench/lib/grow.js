// Grows a database's sample (12k orders) to a number of orders, as the tests' helper does (test/support/grow-orders.ts):
// by INSERT ... SELECT of the seeded orders, their lines and their customers. Run while no server has it open.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from './setup.js';

const built = (path) => import(pathToFileURL(join(projectRoot, 'dist', path)).href);
const { loadConfig } = await built('lib/config/load.js');
const { openStorage } = await built('lib/storage/open-storage.js');
const { allModules } = await built('lib/create-services.js');
const { application } = await built('services/index.js');
const { growOrders } = await built('test/support/grow-orders.js');

/** Grows the store `env` configures to about `orders` orders (customers to `options.customers`); answers the orders there are. */
export async function growDatabase(env, orders, options = {}) {
  // Copying a million orders' lines is one statement of minutes on PostgreSQL: past the store's query timeout for requests.
  const { config } = loadConfig({ env: { ...env, Storage__QueryTimeoutSeconds: '3600', RestAPI__RequestTimeoutSeconds: '3601' } });
  const storage = await openStorage(config, allModules(application.modules));
  try {
    return await growOrders(storage, orders, options);
  } finally {
    await storage.close();
  }
}
