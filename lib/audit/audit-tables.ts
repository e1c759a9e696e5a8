import type { Generated } from 'kysely';
import type { DbDate } from '../storage/tables.js';

/**
 * The audit trail (lib/audit/migrations.ts): one row per write of a business record. `record_id` is text so a
 * service with keys other than integers records the same way; `changes` is the JSON array of AuditChange.
 */
export interface AuditEntryTable {
  id: Generated<number>;
  entity: string;
  record_id: string;
  at: DbDate;
  user_name: string;
  operation: string;
  changes: string;
}

// A type, not an interface: storage.db.withTables<T>() takes a record of tables.
export type AuditTables = {
  audit_entry: AuditEntryTable;
};
