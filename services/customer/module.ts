import { serviceModule } from 'restlayer';
import { customer } from './customer.js';
import { customerMigrations } from './migrations.js';

/** Customer records. No seed data: a new store starts with an empty table (the sales-order module seeds the sample's). */
export const customerModule = serviceModule({
  name: 'customer',
  migrations: customerMigrations,
  resources: [customer],
});
