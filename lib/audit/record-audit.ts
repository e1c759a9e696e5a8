import type { Kysely } from 'kysely';
import { currentAccess } from '../envelope/request-scope.js';
import type { AuditChange, AuditOperation } from './audit-models.js';
import type { AuditTables } from './audit-tables.js';
import { redacted } from './secrets.js';

/**
 * The user name of writes made outside a request: the CLI, jobs and scripts that call a service directly (no caller
 * is signed in there; the operator who ran them is in the system's own logs).
 */
export const SYSTEM_USER = 'system';

/** What one audit entry records. */
export interface AuditRecord {
  /** The service's records, as its history route names them: `sales-order`, `customer`. */
  entity: string;
  recordId: number | string;
  operation: AuditOperation;
  /** The changed fields (diffChanges); secret fields' values are redacted here whatever the caller passed. */
  changes: readonly AuditChange[];
  /** Default: the caller's user name (`currentAccess()`), else SYSTEM_USER. */
  user?: string;
  /** Default: now. */
  at?: Date;
}

/**
 * Records one write in the audit trail, through `trx`: call it inside the write's own transaction, after the write,
 * so the entry commits with it and a write that fails or is rolled back leaves none. Values of fields named like
 * secrets (password, hash, token, key, salt…) are replaced by `[redacted]`.
 */
export async function recordAudit<DB>(trx: Kysely<DB>, record: AuditRecord): Promise<void> {
  // The transaction of any service's tables: only audit_entry is written through it here.
  const db = trx as unknown as Kysely<AuditTables>;
  await db.insertInto('audit_entry').values({
    entity: record.entity,
    record_id: String(record.recordId),
    // ISO text: SQLite's date columns hold exactly this, PostgreSQL's timestamptz takes it.
    at: (record.at ?? new Date()).toISOString(),
    user_name: (record.user ?? currentAccess()?.userName ?? SYSTEM_USER).slice(0, 100),
    operation: record.operation,
    changes: JSON.stringify(record.changes.map(redacted)),
  }).execute();
}
