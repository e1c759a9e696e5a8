import { serviceModule } from 'restlayer';
import { registerSalesLookups } from './lookups.js';
// The German texts of the service's codes, registered as the module loads.
import './messages-de.js';
import { salesOrderMigrations } from './migrations.js';
import { salesOrder } from './sales-order.js';
import { seedSampleData } from './sample-data.js';

/** Sales orders with their reference tables (statuses, territories, sales people, products) and customers. */
export const salesOrderModule = serviceModule({
  name: 'sales-order',
  migrations: salesOrderMigrations,
  async seed(storage) {
    const orders = await seedSampleData(storage);
    return orders ? `loaded ${orders} sample sales orders` : undefined;
  },
  lookups: registerSalesLookups,
  resources: [salesOrder],
});
