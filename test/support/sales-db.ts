import type { Storage } from 'restlayer';
import type { SalesTables } from '../../services/sales-order/sales-order-tables.js';

/** The sales-order module's tables of a test server's store, for tests that change rows behind the API. */
export const salesDb = (storage: Storage) => storage.db.withTables<SalesTables>();
