import { type QueryExecutorProvider, type RawBuilder, sql } from 'kysely';
import { currentAccess } from '../envelope/request-scope.js';
import type { AuditChange, AuditOperation } from './audit-models.js';
import { boundedChanges } from './entry-bound.js';
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
  /**
   * The changed fields (diffChanges); secret fields' values are redacted here whatever the caller passed, and the
   * entry is bounded (entry-bound.ts: long texts cut, at most AUDIT_ENTRY_MAX_BYTES of changes, then a marker).
   */
  changes: readonly AuditChange[];
  /** Default: the caller's user name (`currentAccess()`), else SYSTEM_USER. */
  user?: string;
  /** Default: now. */
  at?: Date;
}

/**
 * Records one write in the audit trail, through `trx`: call it inside the write's own transaction, after the write,
 * so the entry commits with it and a write that fails or is rolled back leaves none. Values of fields named like
 * secrets (password, hash, token, key, salt…) are replaced by `[redacted]`; an entry keeps at most
 * AUDIT_ENTRY_MAX_BYTES of changes (boundedChanges).
 */
export async function recordAudit(trx: QueryExecutorProvider, record: AuditRecord): Promise<void> {
  await auditInsert(record).execute(trx);
}

/**
 * The INSERT of one audit entry (recordAudit runs it): on its own, or, with `from`, one row for each row of `from`
 * (a WITH query's name), so that a write and its entry are one statement (a declared update on PostgreSQL,
 * lib/resources/runtime/write-record.ts).
 */
export function auditInsert(record: AuditRecord, from?: RawBuilder<unknown>): RawBuilder<unknown> {
  // Plain SQL: `trx` is any service's transaction (or store), whatever tables its type names.
  const user = (record.user ?? currentAccess()?.userName ?? SYSTEM_USER).slice(0, 100);
  // ISO text: SQLite's date columns hold exactly this, PostgreSQL's timestamptz takes it.
  const at = (record.at ?? new Date()).toISOString();
  const values = sql.join([record.entity, String(record.recordId), at, user, record.operation, JSON.stringify(boundedChanges(record.changes.map(redacted)))]);
  const columns = sql`audit_entry (entity, record_id, at, user_name, operation, changes)`;
  return from ? sql`insert into ${columns} select ${values} from ${from}` : sql`insert into ${columns} values (${values})`;
}
