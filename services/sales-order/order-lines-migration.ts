import { type Kysely, type Migration, type StorageDialect, listIndexes, sql } from 'restlayer';
import { LEGACY_PRODUCT, products } from './products.js';
import type { SalesTables } from './sales-order-tables.js';

/**
 * Orders become documents (contract part 9, "Order lines"): the product lookup table, the lines, the header's money
 * columns, and totalDue moved from a binary float to the exact money type. An existing database keeps every order's
 * amount: each order gets one line of the inactive product "Amount before order lines" at its totalDue, so
 * subTotal = Σ lineTotal and totalDue = subTotal + taxAmt + freight hold from the first moment (docs/documents.md).
 */
export function orderLinesMigration(dialect: StorageDialect): Migration {
  const { money, bool } = dialect.types;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('product')
        .addColumn('product_id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'varchar(100)', (c) => c.notNull())
        .addColumn('product_number', 'varchar(25)', (c) => c.notNull().unique())
        .addColumn('list_price', money, (c) => c.notNull())
        .addColumn('is_active', bool, (c) => c.notNull())
        .execute();
      await (db as Kysely<SalesTables>).insertInto('product').values(products.map((p) => ({
        product_id: p.productId, name: p.name, product_number: p.productNumber,
        list_price: dialect.money(p.listPrice), is_active: dialect.bool(p.isActive),
      }))).execute();
      await db.schema.createTable('sales_order_detail')
        .addColumn('sales_order_detail_id', 'integer', (c) => dialect.identity(c))
        .addColumn('sales_order_id', 'integer', (c) => c.notNull().references('sales_order.sales_order_id').onDelete('cascade'))
        .addColumn('product_id', 'integer', (c) => c.notNull().references('product.product_id'))
        .addColumn('order_qty', 'integer', (c) => c.notNull())
        .addColumn('unit_price', money, (c) => c.notNull())
        .addColumn('unit_price_discount', money, (c) => c.notNull())
        .addColumn('line_total', money, (c) => c.notNull())
        .execute();
      // An order's lines in order, from the index alone (every read of an order, and the totals' SUM).
      await db.schema.createIndex('ix_sales_order_detail_order').on('sales_order_detail')
        .columns(['sales_order_id', 'sales_order_detail_id']).execute();
      for (const column of ['sub_total', 'tax_amt', 'freight']) {
        await db.schema.alterTable('sales_order').addColumn(column, money, (c) => c.notNull().defaultTo(0)).execute();
      }
      await exactTotalDue(db, dialect);
      // The amounts from before lines: one line each, so the equalities hold for every order there is.
      await sql`insert into sales_order_detail (sales_order_id, product_id, order_qty, unit_price, unit_price_discount, line_total)
        select sales_order_id, ${LEGACY_PRODUCT.productId}, 1, total_due, 0, total_due from sales_order order by sales_order_id`.execute(db);
      await sql`update sales_order set sub_total = total_due`.execute(db);
    },
  };
}

/**
 * total_due as the money type. PostgreSQL changes the column in place (its indexes are rebuilt with it). SQLite
 * cannot: a new integer column of ten-thousandths takes the rounded values, and the list indexes of 0004 that name
 * total_due are dropped and made again on it.
 */
async function exactTotalDue(db: Kysely<unknown>, dialect: StorageDialect): Promise<void> {
  if (dialect.altersColumnsInPlace) {
    await sql`alter table sales_order alter column total_due type ${sql.raw(String(dialect.types.money))}
      using round(total_due::numeric, 4)`.execute(db);
    return;
  }
  const indexes = [['ix_sales_order_total_due', 'total_due'], ['ix_sales_order_order_date_total_due', 'order_date', 'total_due']] as const;
  for (const [name] of indexes) await db.schema.dropIndex(name).ifExists().execute();
  await db.schema.alterTable('sales_order').addColumn('total_due_exact', dialect.types.money, (c) => c.notNull().defaultTo(0)).execute();
  await sql`update sales_order set total_due_exact = cast(round(total_due * 10000) as integer)`.execute(db);
  await db.schema.alterTable('sales_order').dropColumn('total_due').execute();
  await db.schema.alterTable('sales_order').renameColumn('total_due_exact', 'total_due').execute();
  const { createListIndex } = listIndexes(db, dialect, 'sales_order', 'sales_order_id');
  for (const [name, ...columns] of indexes) await createListIndex(name, ...columns);
}
