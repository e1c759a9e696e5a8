import type { LookupCache } from '../../lib/lookup/lookup-cache.js';
import type { Storage } from '../../lib/storage/storage.js';
import { OPERATORS, arityOf } from '../../lib/validation/criteria.js';

const operatorText: Record<(typeof OPERATORS)[number], string> = {
  EQ: 'Is equal to', NEQ: 'Is not equal to', In: 'Is one of', NIn: 'Is not one of', LT: 'Is less than',
  LE: 'Is less than or equal to', GT: 'Is greater than', GE: 'Is greater than or equal to', BW: 'Is between',
  NBW: 'Is not between', CN: 'Contains', NCN: 'Does not contain', SW: 'Starts with', NSW: 'Does not start with',
  NL: 'Is null', NNL: 'Is not null',
};

/** The tables this server knows: three read from the database, `operators` from code. */
export function registerLookupTables(cache: LookupCache, { db, values }: Storage): LookupCache {
  return cache
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
    .register('operators', async () => ({
      type: 'operators',
      caseSensitive: false,
      data: OPERATORS.map((op) => {
        const [min, max] = arityOf(op);
        return { id: op, text: operatorText[op], isActive: true, attributes: { minValues: min, maxValues: max } };
      }),
    }));
}
