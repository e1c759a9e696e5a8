import { documentLimits, listLimits, serviceModule } from 'restlayer';
import { registerSalesLookups } from './lookups.js';
// The German texts of the service's codes, registered as the module loads.
import './messages-de.js';
import { salesOrderMigrations } from './migrations.js';
import { seedSampleData } from './sample-data.js';
import type { ISalesOrderService } from './sales-order-service.js';
import { SqlSalesOrderService } from './sql-sales-order-service.js';

/** Sales orders with their reference tables (statuses, territories, sales people) and customers. */
export const salesOrderModule = serviceModule({
  name: 'sales-order',
  migrations: salesOrderMigrations,
  async seed(storage) {
    const orders = await seedSampleData(storage);
    return orders ? `loaded ${orders} sample sales orders` : undefined;
  },
  lookups: registerSalesLookups,
  create: ({ storage, lookups, config }): { salesOrder: ISalesOrderService } => ({
    salesOrder: new SqlSalesOrderService(storage, lookups, { ...listLimits(config), ...documentLimits(config) }),
  }),
});
