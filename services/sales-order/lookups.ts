import type { LookupCache, Storage } from 'restlayer';
import type { SalesTables } from './sales-order-tables.js';

/** The sales-order module's lookup tables, read from its reference tables. */
export function registerSalesLookups(cache: LookupCache, storage: Storage): void {
  const db = storage.db.withTables<SalesTables>();
  const { values } = storage;
  cache
    .register('sales-order-status', async () => ({
      type: 'sales-order-status',
      caseSensitive: false,
      data: (await db.selectFrom('sales_order_status').selectAll().orderBy('status_id').execute())
        .map((r) => ({ id: r.status_id, text: r.name, isActive: values.toBool(r.is_active), attributes: {} })),
    }))
    .register('sales-territory', async () => ({
      type: 'sales-territory',
      caseSensitive: false,
      data: (await db.selectFrom('sales_territory').selectAll().orderBy('territory_id').execute())
        .map((r) => ({ id: r.territory_id, text: r.name, isActive: true, attributes: { countryRegionCode: r.country_region_code, group: r.territory_group } })),
    }))
    .register('sales-person', async () => ({
      type: 'sales-person',
      caseSensitive: false,
      data: (await db.selectFrom('sales_person').selectAll().orderBy('name').execute())
        .map((r) => ({ id: r.sales_person_id, text: r.name, isActive: values.toBool(r.is_active), attributes: { territoryId: r.territory_id } })),
    }))
    .register('product', async () => ({
      type: 'product',
      caseSensitive: false,
      data: (await db.selectFrom('product').selectAll().orderBy('product_id').execute())
        .map((r) => ({
          id: r.product_id, text: r.name, isActive: values.toBool(r.is_active),
          attributes: { productNumber: r.product_number, listPrice: values.toMoney(r.list_price) },
        })),
    }));
}
