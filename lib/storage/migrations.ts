import { type Kysely, type Migration, Migrator } from 'kysely';
import { newStamp } from '../auth/credential-stamp.js';
import { insertReferenceData } from './sample-data.js';
import type { SqlValues } from './sql-values.js';
import type { Tables } from './tables.js';

/**
 * Versioned schema changes, applied in name order and recorded by Kysely's migrator. Column types differ by
 * provider only where the providers differ (identity, dates, booleans); everything else is shared.
 */
function migrations(values: SqlValues): Record<string, Migration> {
  const { provider } = values;
  const dateType = provider === 'sqlite' ? 'text' : 'timestamptz';
  const boolType = provider === 'sqlite' ? 'integer' : 'boolean';
  const numberType = provider === 'sqlite' ? 'real' : 'double precision';
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
          .addColumn('sales_order_id', 'integer', (c) =>
            provider === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity())
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
        await insertReferenceData(db as Kysely<Tables>, values);
      },
      async down(db: Kysely<unknown>) {
        for (const table of ['sales_order', 'customer', 'sales_order_status', 'sales_person', 'sales_territory']) {
          await db.schema.dropTable(table).execute();
        }
      },
    },
    '0002-auth': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('app_user')
          .addColumn('user_key', 'varchar(100)', (c) => c.primaryKey())
          .addColumn('user_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('display_name', 'varchar(200)', (c) => c.notNull())
          .addColumn('roles', 'text', (c) => c.notNull())
          .addColumn('password_hash', 'varchar(200)', (c) => c.notNull())
          .addColumn('disabled', boolType, (c) => c.notNull())
          .addColumn('created_date', dateType, (c) => c.notNull())
          .execute();
        await db.schema.createTable('auth_session')
          .addColumn('session_id', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('user_key', 'varchar(100)', (c) => c.notNull().references('app_user.user_key').onDelete('cascade'))
          .addColumn('created_date', dateType, (c) => c.notNull())
          .addColumn('expires_date', dateType, (c) => c.notNull())
          .addColumn('revoked_date', dateType)
          .execute();
        await db.schema.createIndex('ix_auth_session_user').on('auth_session').column('user_key').execute();
        await db.schema.createTable('refresh_token')
          .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('session_id', 'varchar(64)', (c) => c.notNull().references('auth_session.session_id').onDelete('cascade'))
          .addColumn('issued_date', dateType, (c) => c.notNull())
          .addColumn('rotated_date', dateType)
          .execute();
        await db.schema.createIndex('ix_refresh_token_session').on('refresh_token').column('session_id').execute();
        await db.schema.createTable('cookie_session')
          .addColumn('session_key', 'varchar(100)', (c) => c.primaryKey())
          .addColumn('user_key', 'varchar(100)')
          .addColumn('data', 'text', (c) => c.notNull())
          .addColumn('expires_date', dateType, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ix_cookie_session_user').on('cookie_session').column('user_key').execute();
      },
      async down(db: Kysely<unknown>) {
        for (const table of ['cookie_session', 'refresh_token', 'auth_session', 'app_user']) await db.schema.dropTable(table).execute();
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
    '0004-ending-access': {
      // Credential stamps (user disable/set-password/remove end every credential of the user), removed users, and
      // the salt that gives refreshes presenting one token together one successor.
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('app_user').addColumn('credential_stamp', 'varchar(64)', (c) => c.notNull().defaultTo('')).execute();
        await db.schema.alterTable('app_user').addColumn('credentials_ended_date', dateType).execute();
        const users = db as Kysely<Tables>;
        for (const { user_key } of await users.selectFrom('app_user').select('user_key').execute()) {
          await users.updateTable('app_user').set({ credential_stamp: newStamp() }).where('user_key', '=', user_key).execute();
        }
        await db.schema.createTable('removed_user')
          .addColumn('user_key', 'varchar(100)', (c) => c.primaryKey())
          .addColumn('removed_date', dateType, (c) => c.notNull())
          .execute();
        await db.schema.alterTable('refresh_token').addColumn('successor_salt', 'varchar(64)').execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.alterTable('refresh_token').dropColumn('successor_salt').execute();
        await db.schema.dropTable('removed_user').execute();
        await db.schema.alterTable('app_user').dropColumn('credentials_ended_date').execute();
        await db.schema.alterTable('app_user').dropColumn('credential_stamp').execute();
      },
    },
  };
}

/** Brings the schema up to date and answers the migrations it applied. */
export async function migrate(db: Kysely<Tables>, values: SqlValues): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations(values) } });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

