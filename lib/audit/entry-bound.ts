import type { AuditChange, AuditValue } from './audit-models.js';

/**
 * The most one audit entry keeps of its changes, as JSON bytes. A write's entry grows with the record: a document's
 * create or delete names every field of every line (the audit's 30,000-line order left one entry of 4.8 MB, which a
 * history page of `take=1` still answered whole). Past this, the changes that do not fit are left out and the entry
 * says so (AUDIT_TRUNCATED_FIELD); the record's own fields come first in every entry, so they are always kept.
 */
export const AUDIT_ENTRY_MAX_BYTES = 64 * 1024;

/** The longest text value a change keeps, in characters; a longer one keeps its start and says how much it lost. */
export const AUDIT_VALUE_MAX_CHARS = 1_000;

/**
 * The field of the change that ends an entry cut at AUDIT_ENTRY_MAX_BYTES, `{ field: '(truncated)', new: N }`: N is
 * how many changes were left out. No field of a record is named so (a wire name has no parentheses).
 */
export const AUDIT_TRUNCATED_FIELD = '(truncated)';

/** `value` with a text over AUDIT_VALUE_MAX_CHARS cut there, ending `… (N more characters)`. */
function boundedValue(value: AuditValue): AuditValue {
  if (typeof value !== 'string' || value.length <= AUDIT_VALUE_MAX_CHARS) return value;
  // Never half of a surrogate pair: the text stays well-formed.
  const end = /[\ud800-\udbff]/.test(value[AUDIT_VALUE_MAX_CHARS - 1]) ? AUDIT_VALUE_MAX_CHARS - 1 : AUDIT_VALUE_MAX_CHARS;
  return `${value.slice(0, end)}… (${value.length - end} more characters)`;
}

function boundedChange(change: AuditChange): AuditChange {
  return {
    field: change.field,
    ...(change.old !== undefined ? { old: boundedValue(change.old) } : {}),
    ...(change.new !== undefined ? { new: boundedValue(change.new) } : {}),
  };
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * The changes one entry keeps: each text value cut at AUDIT_VALUE_MAX_CHARS, and the changes in order while their JSON
 * stays within AUDIT_ENTRY_MAX_BYTES; when some do not fit, the last change kept is the marker
 * `{ field: AUDIT_TRUNCATED_FIELD, new: <how many were left out> }`, within the bound too. Stops at the first change
 * that does not fit, so a write's entry costs what the bound does, however many fields it changed.
 */
export function boundedChanges(changes: readonly AuditChange[]): AuditChange[] {
  // Room for the marker (and its comma) at its largest: every change left out.
  const reserve = bytesOf({ field: AUDIT_TRUNCATED_FIELD, new: changes.length }) + 1;
  const kept: AuditChange[] = [];
  let bytes = 2;
  for (let i = 0; i < changes.length; i++) {
    const change = boundedChange(changes[i]);
    const size = bytesOf(change) + (kept.length ? 1 : 0);
    const last = i === changes.length - 1;
    if (bytes + size + (last ? 0 : reserve) > AUDIT_ENTRY_MAX_BYTES) {
      kept.push({ field: AUDIT_TRUNCATED_FIELD, new: changes.length - kept.length });
      return kept;
    }
    kept.push(change);
    bytes += size;
  }
  return kept;
}
