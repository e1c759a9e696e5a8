import type { Kysely, Migration } from 'kysely';
import type { StorageDialect } from '../storage/dialects/dialect.js';

/**
 * The audit trail's table. A record's history is read newest first by the index (entity, record_id, id): a range of
 * one record's entries in id order, whatever the table's size; retention prunes from the lowest ids (the oldest).
 */
export function auditMigrations(dialect: StorageDialect): Record<string, Migration> {
  return {
    '0001-audit-entry': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('audit_entry')
          .addColumn('id', dialect.types.bigId, (c) => dialect.identity(c))
          .addColumn('entity', 'varchar(64)', (c) => c.notNull())
          .addColumn('record_id', 'varchar(100)', (c) => c.notNull())
          .addColumn('at', dialect.types.date, (c) => c.notNull())
          .addColumn('user_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('operation', 'varchar(32)', (c) => c.notNull())
          .addColumn('changes', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ix_audit_entry_record').on('audit_entry').columns(['entity', 'record_id', 'id']).execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('audit_entry').execute();
      },
    },
  };
}
