import { type Kysely, type Migration, type StorageDialect, listIndexes, sql, trackListChanges } from 'restlayer';
import { orderLinesMigration } from './order-lines-migration.js';
import type { SalesTables } from './sales-order-tables.js';
import { insertReferenceData } from './sample-data.js';

/**
 * The sales-order schema: reference tables, customers and orders. Column types differ by provider only where the
 * providers differ (identity, dates, booleans). Names are kept from when one history held every table.
 */
export function salesOrderMigrations(dialect: StorageDialect): Record<string, Migration> {
  const { date: dateType, bool: boolType, number: numberType } = dialect.types;
  return {
    '0001-sales': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('sales_territory')
          .addColumn('territory_id', 'integer', (c) => c.primaryKey())
          .addColumn('name', 'varchar(50)', (c) => c.notNull())
          .addColumn('country_region_code', 'varchar(3)', (c) => c.notNull())
          .addColumn('territory_group', 'varchar(50)', (c) => c.notNull())
          .execute();
        await db.schema.createTable('sales_person')
          .addColumn('sales_person_id', 'integer', (c) => c.primaryKey())
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('territory_id', 'integer', (c) => c.references('sales_territory.territory_id'))
          .addColumn('is_active', boolType, (c) => c.notNull())
          .execute();
        await db.schema.createTable('sales_order_status')
          .addColumn('status_id', 'integer', (c) => c.primaryKey())
          .addColumn('name', 'varchar(50)', (c) => c.notNull())
          .addColumn('is_active', boolType, (c) => c.notNull())
          .execute();
        await db.schema.createTable('customer')
          .addColumn('customer_id', 'integer', (c) => c.primaryKey())
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('account_number', 'varchar(15)', (c) => c.notNull())
          .addColumn('territory_id', 'integer', (c) => c.notNull().references('sales_territory.territory_id'))
          .execute();
        await db.schema.createTable('sales_order')
          .addColumn('sales_order_id', 'integer', (c) => dialect.identity(c))
          .addColumn('sales_order_number', 'varchar(25)', (c) => c.notNull())
          .addColumn('status', 'integer', (c) => c.notNull().references('sales_order_status.status_id'))
          .addColumn('order_date', dateType, (c) => c.notNull())
          .addColumn('due_date', dateType, (c) => c.notNull())
          .addColumn('ship_date', dateType)
          .addColumn('customer_id', 'integer', (c) => c.notNull().references('customer.customer_id'))
          .addColumn('territory_id', 'integer', (c) => c.references('sales_territory.territory_id'))
          .addColumn('sales_person_id', 'integer', (c) => c.references('sales_person.sales_person_id'))
          .addColumn('total_due', numberType, (c) => c.notNull())
          .addColumn('online_order_flag', boolType, (c) => c.notNull())
          .addColumn('purchase_order_number', 'varchar(25)')
          .addColumn('account_number', 'varchar(15)')
          .addColumn('comment', 'varchar(128)')
          .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('modified_date', dateType, (c) => c.notNull())
          .execute();
        for (const column of ['order_date', 'status', 'customer_id', 'territory_id', 'sales_person_id', 'total_due', 'due_date']) {
          await db.schema.createIndex(`ix_sales_order_${column}`).on('sales_order').column(column).execute();
        }
        await db.schema.createIndex('ux_sales_order_number').on('sales_order').column('sales_order_number').unique().execute();
        // Reference data is part of the schema version: it commits or rolls back with the tables.
        await insertReferenceData(db as Kysely<SalesTables>, dialect);
      },
      async down(db: Kysely<unknown>) {
        for (const table of ['sales_order', 'customer', 'sales_order_status', 'sales_person', 'sales_territory']) {
          await db.schema.dropTable(table).execute();
        }
      },
    },
    '0003-list-indexes': {
      // The most common list: one status, newest first. With (status, order_date) the rows come in order from the
      // index (every SQLite index ends with the id), instead of sorting thousands of matches per request.
      async up(db: Kysely<unknown>) {
        await db.schema.createIndex('ix_sales_order_status_order_date').on('sales_order').columns(['status', 'order_date']).execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropIndex('ix_sales_order_status_order_date').execute();
      },
    },
    '0004-list-keys': {
      // Lists read a page's keys from an index alone (lib/storage/list-query.ts): every sortable and filterable column
      // gets one ending with the id, and the order number a folded one for prefix filters (SW).
      async up(db: Kysely<unknown>) {
        const { createFoldedIndex, createListIndex, rekeyListIndex } = listIndexes(db, dialect, 'sales_order', 'sales_order_id');
        for (const column of ['order_date', 'status', 'customer_id', 'territory_id', 'sales_person_id', 'total_due', 'due_date']) {
          await rekeyListIndex(`ix_sales_order_${column}`, column);
        }
        await rekeyListIndex('ix_sales_order_status_order_date', 'status', 'order_date');
        for (const column of ['ship_date', 'online_order_flag']) await createListIndex(`ix_sales_order_${column}`, column);
        // One period sorted by amount: the period's keys and amounts come from this index alone, to be sorted.
        await createListIndex('ix_sales_order_order_date_total_due', 'order_date', 'total_due');
        await createFoldedIndex('ix_sales_order_number_folded', 'sales_order_number');
      },
    },
    '0005-list-changes': {
      // Every write bumps the orders' change generation: exact counts are kept while it stands (lib/storage/count-cache.ts).
      // A count after a write reads the deduplicated status index (PostgreSQL), kept all-visible by autovacuum.
      async up(db: Kysely<unknown>) {
        await trackListChanges(db, dialect, 'sales_order');
        const { createCountIndex, vacuumSoon } = listIndexes(db, dialect, 'sales_order', 'sales_order_id');
        await createCountIndex('ix_sales_order_status_count', 'status');
        await vacuumSoon();
      },
    },
    '0006-key-index': {
      // A deep page with no filter walks an index of the id alone on SQLite instead of the rows (list-indexes.ts says
      // why PostgreSQL needs none): at 90 % of a million orders, the last 108,000 keys.
      async up(db: Kysely<unknown>) {
        await listIndexes(db, dialect, 'sales_order', 'sales_order_id').createKeyIndex('ix_sales_order_list_key');
      },
    },
    '0007-order-lines': orderLinesMigration(dialect),
    '0008-scope-indexes': {
      // A SalesPerson's lists (record scope `own`: sales_person_id = theirs, in every query) newest first, one
      // status newest first, and by amount walk these in order and stop at a full page, instead of sorting all of the
      // sales person's orders (tens of thousands at a million orders) for every page; their customers (customers'
      // scope: customer_id in the sales person's orders) come from the last one alone. Partial (sales person not
      // null): a scoped query's `sales_person_id = ?` implies it, so it may use them, while a list without a sales
      // person cannot — SQLite would otherwise skip-scan them (a range of order_date within each of the few sales
      // people) for unscoped lists, e.g. one month by amount took 180 ms at a million orders instead of 5.
      async up(db: Kysely<unknown>) {
        const keyed = (...columns: string[]) => (dialect.clusteredByKey ? columns : [...columns, 'sales_order_id']);
        const indexes: [string, string[]][] = [
          ['ix_sales_order_sales_person_order_date', ['sales_person_id', 'order_date']],
          ['ix_sales_order_sales_person_status_order_date', ['sales_person_id', 'status', 'order_date']],
          ['ix_sales_order_sales_person_total_due', ['sales_person_id', 'total_due']],
          ['ix_sales_order_sales_person_customer', ['sales_person_id', 'customer_id']],
        ];
        for (const [name, columns] of indexes) {
          await db.schema.createIndex(name).on('sales_order').columns(keyed(...columns)).where(sql.ref('sales_person_id'), 'is not', null).execute();
        }
      },
    },
    '0009-soft-delete': {
      // A delete marks an order deleted (contract part 13), its lines kept: deleted_at holds when (purge removes what
      // was deleted long enough ago), NULL for an order not deleted. The order number stays unique among all orders
      // (it is made from the id, which no other order has): its index stays whole.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('sales_order').addColumn('deleted_at', dialect.types.date).execute();
      },
    },
    '0010-soft-delete-list-indexes': {
      // Every list now skips deleted orders (deleted_at IS NULL in each keys, page and count statement): the list
      // indexes hold deleted_at, so SQLite tests it in the index instead of reading every row a page or count walks
      // (a deep page with no filter read 10,000 rows at 100,000 orders; a count by status scanned the table).
      // SQLite: deleted_at right after the columns compared with =, so the rest still come in order; PostgreSQL:
      // included (list-indexes.ts says why). On SQLite the indexes of the columns lists only sort by (order_date,
      // total_due, due_date, ship_date) stay as they were: with deleted_at after the column their ties would come
      // out of order, and before it (deleted_at IS NULL then leads) SQLite took them for lists in key order too and
      // sorted all the keys (a deep page with no filter, the first page); those walks read a page's rows to test it.
      async up(db: Kysely<unknown>) {
        const { includeLive, replaceHoldingLive, replaceFoldedHoldingLive, replaceKeyHoldingLive, replaceCountOfLive, createDeletedIndex } = listIndexes(db, dialect, 'sales_order', 'sales_order_id');
        const live = 'deleted_at';
        for (const column of ['status', 'customer_id', 'territory_id', 'sales_person_id', 'online_order_flag']) {
          await replaceHoldingLive(`ix_sales_order_${column}`, live, [column]);
        }
        for (const column of ['order_date', 'total_due', 'due_date', 'ship_date']) await includeLive(`ix_sales_order_${column}`, live, [column]);
        await replaceHoldingLive('ix_sales_order_status_order_date', live, ['status', 'order_date'], 1);
        // A period's keys and amounts, to be sorted anyway: deleted_at last.
        await replaceHoldingLive('ix_sales_order_order_date_total_due', live, ['order_date', 'total_due']);
        // 0008's partial indexes of a sales person's lists, their condition kept.
        const salesPerson = sql<boolean>`${sql.ref('sales_person_id')} is not null`;
        await replaceHoldingLive('ix_sales_order_sales_person_order_date', live, ['sales_person_id', 'order_date'], 1, salesPerson);
        await replaceHoldingLive('ix_sales_order_sales_person_status_order_date', live, ['sales_person_id', 'status', 'order_date'], 2, salesPerson);
        await replaceHoldingLive('ix_sales_order_sales_person_total_due', live, ['sales_person_id', 'total_due'], 1, salesPerson);
        await replaceHoldingLive('ix_sales_order_sales_person_customer', live, ['sales_person_id', 'customer_id'], 2, salesPerson);
        await replaceFoldedHoldingLive('ix_sales_order_number_folded', 'sales_order_number', live);
        await replaceKeyHoldingLive('ix_sales_order_list_key', live);
        await replaceCountOfLive('ix_sales_order_status_count', 'status', live);
        await createDeletedIndex('ix_sales_order_deleted_at', live);
      },
    },
    '0011-tenant': {
      // Orders belong to tenants (contract part 12, docs/tenancy.md): '' for the orders there are, which turning tenancy
      // on gives to Tenancy:DefaultTenant. The order number stays unique among all orders (made from the id).
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('sales_order').addColumn('tenant_id', 'text', (c) => c.notNull().defaultTo('')).execute();
      },
    },
    '0012-tenant-probe': {
      // A SalesPerson's orders by customer name walk the customers by name and look up the person's orders of each
      // (7,570 look-ups for a page at a million orders). The twin tenancy would make of 0010's index leads with the
      // tenant, so each look-up compares it at every level down (PostgreSQL: 10.4 ms against 5.7 with tenancy off);
      // here it comes after the two columns compared with =, and is compared only where both matched (6.0 ms). The
      // index names the tenant, so tenancy makes no twin of it (lib/storage/tenant-indexes.ts); with tenancy off
      // every row holds '' there. A twin made by an earlier start with tenancy on goes.
      async up(db: Kysely<unknown>) {
        const { replaceHoldingLive } = listIndexes(db, dialect, 'sales_order', 'sales_order_id');
        await db.schema.dropIndex('ix_sales_order_sales_person_customer_tenant').ifExists().execute();
        await replaceHoldingLive('ix_sales_order_sales_person_customer', 'deleted_at', ['sales_person_id', 'customer_id', 'tenant_id'], 3,
          sql<boolean>`${sql.ref('sales_person_id')} is not null`);
      },
    },
    '0013-product-changes': {
      // An order's ETag is made of versions (docs/services.md, "Record ETags come from versions"): its lines show their products' names, so
      // every product write bumps the products' change generation, and a write of an order answers its new tag
      // without reading the order again.
      async up(db: Kysely<unknown>) {
        await trackListChanges(db, dialect, 'product');
      },
    },
  };
}
