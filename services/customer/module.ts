// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import { listLimits, serviceModule } from 'restlayer';
import { ACCOUNT_NUMBER_INDEX, customerMigrations } from './migrations.js';
import type { ICustomerService } from './customer-service.js';
import { SqlCustomerService } from './sql-customer-service.js';

/** Customer records. No seed data: a new store starts with an empty table. */
export const customerModule = serviceModule({
  name: 'customer',
  migrations: customerMigrations,
  // An index on lower(account_number): the store reports the index, not the column, so it is named here.
  uniqueKeys: [{ index: ACCOUNT_NUMBER_INDEX, property: 'accountNumber' }],
  create: ({ storage, lookups, config }): { customer: ICustomerService } => ({
    customer: new SqlCustomerService(storage, lookups, listLimits(config)),
  }),
});
