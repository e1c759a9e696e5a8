import type { AppConfig } from '../lib/config/schema.js';
import { type InvalidationBus, LookupCache, localBus } from '../lib/lookup/lookup-cache.js';
import type { Storage } from '../lib/storage/storage.js';
import { CachedLookupService } from './lookup/cached-lookup-service.js';
import { registerLookupTables } from './lookup/lookup-loaders.js';
import type { ILookupService } from './lookup/lookup-service.js';
import type { ISalesOrderService } from './sales-order/sales-order-service.js';
import { SqlSalesOrderService } from './sales-order/sql-sales-order-service.js';

/** The business services one server runs, each behind its interface. Routes reach them as `call.services`. */
export interface Services {
  salesOrder: ISalesOrderService;
  lookup: ILookupService;
  storage: Storage;
}

export function createServices(storage: Storage, config: AppConfig, bus: InvalidationBus = localBus): Services {
  const cache = registerLookupTables(new LookupCache(bus), storage);
  return {
    storage,
    lookup: new CachedLookupService(cache),
    salesOrder: new SqlSalesOrderService(storage, cache, { maxRows: config.RestAPI.MaxRows }),
  };
}
