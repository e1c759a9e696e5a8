import type { AuditChange, AuditValue } from './audit-models.js';

/** A value as a service has it: dates become ISO 8601 text; null and undefined are "no value". */
export type FieldValue = AuditValue | Date | null | undefined;

/** A record's fields as on the wire, flattened (a line's `lines[7].orderQty`), for diffChanges. */
export type AuditState = Readonly<Record<string, FieldValue>>;

/** A field's value as an audit entry keeps it: dates as ISO text, no value as undefined. */
export function auditValue(value: FieldValue): AuditValue | undefined {
  if (value === null || value === undefined) return undefined;
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * The changes from `before` to `after`, one per field whose wire value differs, in the order the fields first appear:
 * a create has no `before` (every field with a value, `new` only), a delete no `after` (`old` only). A field without
 * a value on one side has no `old` or `new` there.
 */
export function diffChanges(before: AuditState | undefined, after: AuditState | undefined): AuditChange[] {
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: AuditChange[] = [];
  for (const field of fields) {
    const old = auditValue(before?.[field]);
    const now = auditValue(after?.[field]);
    if (old === now) continue;
    changes.push({ field, ...(old !== undefined ? { old } : {}), ...(now !== undefined ? { new: now } : {}) });
  }
  return changes;
}

/** The fields of `state` named with a prefix: `prefixed('lines[7].', line)` → `lines[7].orderQty`, … */
export function prefixed(prefix: string, state: AuditState): AuditState {
  return Object.fromEntries(Object.entries(state).map(([field, value]) => [`${prefix}${field}`, value]));
}
