import { fileURLToPath } from 'node:url';
import { type Kysely, type StorageDialect, serviceModule, trackListChanges } from 'restlayer';
import { SUITE_GRADES, suiteOrder, suiteOwner, suiteProbe, suiteRuled } from './suite-probe.js';

/** The probes' tables, as a team's first migration would make them. */
async function createTables(db: Kysely<unknown>, dialect: StorageDialect): Promise<void> {
  // Every resource's table: its key, then its revision and modified date (lib/resources/model.ts).
  const table = (name: string) => db.schema.createTable(name)
    .addColumn(`${name}_id`, 'integer', (c) => dialect.identity(c.primaryKey()))
    .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('modified_date', dialect.types.date, (c) => c.notNull());
  await table('suite_owner')
    .addColumn('name', 'varchar(20)', (c) => c.notNull())
    .execute();
  await table('suite_probe')
    .addColumn('code', 'varchar(12)', (c) => c.notNull().unique())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('weight', dialect.types.number)
    .addColumn('price', dialect.types.money, (c) => c.notNull())
    .addColumn('made_on', dialect.types.date)
    .addColumn('active', dialect.types.bool)
    .addColumn('grade', 'varchar(3)')
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('suite_owner.suite_owner_id'))
    .addColumn('serial', 'varchar(10)')
    .addColumn('note', 'varchar(20)', (c) => c.notNull())
    .addColumn('total', dialect.types.money, (c) => c.notNull())
    .execute();
  await table('suite_ruled')
    .addColumn('code', 'varchar(12)', (c) => c.notNull().unique())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .execute();
  await table('suite_order')
    .addColumn('reference', 'varchar(20)', (c) => c.notNull())
    .addColumn('total_due', dialect.types.money, (c) => c.notNull())
    .execute();
  await db.schema.createTable('suite_order_line')
    .addColumn('suite_order_line_id', 'integer', (c) => dialect.identity(c.primaryKey()))
    .addColumn('suite_order_id', 'integer', (c) => c.notNull().references('suite_order.suite_order_id').onDelete('cascade'))
    .addColumn('description', 'varchar(40)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('unit_price', dialect.types.money, (c) => c.notNull())
    .addColumn('line_total', dialect.types.money, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ix_suite_order_line_order').on('suite_order_line').column('suite_order_id').execute();
  for (const name of ['suite_owner', 'suite_probe', 'suite_ruled', 'suite_order']) await trackListChanges(db, dialect, name);
}

/** The probes' module: their tables, the grades lookup table, the resources. */
export const suiteProbeModule = serviceModule({
  name: 'suite-probe',
  migrations: (dialect) => ({ '0001-suite-probe': { up: (db: Kysely<unknown>) => createTables(db, dialect) } }),
  lookups(cache) {
    cache.register('suite-grade', async () => ({
      type: 'suite-grade',
      caseSensitive: true,
      data: [...SUITE_GRADES, 'X'].map((id) => ({ id, text: `Grade ${id}`, isActive: id !== 'X', attributes: {} })),
    }));
  },
  resources: [suiteOwner, suiteProbe, suiteRuled, suiteOrder],
});

/** The probes' application: their module and route files only (the layer's own routes are served beside them). */
export const suiteProbeApplication = {
  modules: [suiteProbeModule],
  routesDir: fileURLToPath(new URL('../suite-probe-routes/', import.meta.url)),
};
