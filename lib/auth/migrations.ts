import type { Kysely, Migration } from 'kysely';
import type { StorageDialect } from '../storage/dialects/dialect.js';
import type { Tables } from '../storage/tables.js';
import { newStamp } from './credential-stamp.js';

/** The layer's own schema: users, login sessions with their refresh tokens, and cookie sessions. */
export function authMigrations(dialect: StorageDialect): Record<string, Migration> {
  const { date: dateType, bool: boolType } = dialect.types;
  return {
    // Named as when one history held every table: databases made then keep their record (see adoptLegacyHistory).
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
    '0005-user-attributes': {
      // Attributes record scopes read (user set-attribute); deleting the user deletes them.
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('user_attribute')
          .addColumn('user_key', 'varchar(100)', (c) => c.notNull().references('app_user.user_key').onDelete('cascade'))
          .addColumn('attribute_key', 'varchar(64)', (c) => c.notNull())
          .addColumn('value', 'varchar(256)', (c) => c.notNull())
          .addPrimaryKeyConstraint('pk_user_attribute', ['user_key', 'attribute_key'])
          .execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('user_attribute').execute();
      },
    },
  };
}
