import type { AuditChange } from './audit-models.js';

/**
 * Field names that hold what an audit trail must never keep: passwords and their hashes, tokens, keys, salts and
 * other secrets. Matched on the field's last segment (`lines[3].apiKey` → `apiKey`), ignoring case and separators.
 */
const SECRET_NAME = /pass(word|wd|phrase)?$|secret|token|hash|salt|credential|(api|private|signing|access)key|^pin$|otp/i;

/** What a secret field's values are replaced by: the entry still says the field changed, never to what. */
export const REDACTED = '[redacted]';

/** Whether `field` names a secret, by its last segment. */
export function isSecretField(field: string): boolean {
  const last = field.slice(field.lastIndexOf('.') + 1).replace(/[^a-z0-9]/gi, '');
  return SECRET_NAME.test(last);
}

/** The change with a secret field's values redacted (present values only: absent stays absent). */
export function redacted(change: AuditChange): AuditChange {
  if (!isSecretField(change.field)) return change;
  return {
    field: change.field,
    ...(change.old !== undefined ? { old: REDACTED } : {}),
    ...(change.new !== undefined ? { new: REDACTED } : {}),
  };
}
