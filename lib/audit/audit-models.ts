import { type Infer, boolean, number, string, union } from 'superstruct';
import { array, date, model, optional, text } from '../validation/fields.js';

/**
 * The operation an audit entry records (contract part 11): the record's own writes, its children's (`line-create`,
 * named after the child), and any action a resource declares (`approve`, `pay`): open, so a payment is recorded as
 * `pay`, not as an `update`. The layer's own are listed for the editor.
 */
export type AuditOperation =
  | 'create' | 'update' | 'patch' | 'delete' | 'line-create' | 'line-update' | 'line-patch' | 'line-delete' | (string & Record<never, never>);

/** A field's value as on the wire: text (dates as ISO 8601 text), a number (money too) or a boolean. */
export type AuditValue = string | number | boolean;

const value = () => optional(union([string(), number(), boolean()]));

/** One changed field: `old` is absent when the field had no value (a create), `new` when it has none now (a delete). */
export const AuditChangeModel = model({ field: text(), old: value(), new: value() });
export type AuditChange = Infer<typeof AuditChangeModel>;

/**
 * One entry of a record's history (`GET /<service>/{id}/history`): when, who (the caller's user name; the CLI's
 * and jobs' writes name SYSTEM_USER), the operation and each changed field's old and new value as on the wire.
 */
export const AuditEntryModel = model({
  at: date(),
  user: text(),
  operation: text(),
  changes: array(AuditChangeModel),
});
export type AuditEntry = Infer<typeof AuditEntryModel>;

/** The page of a history: `skip` entries left out (newest first), at most `take` (RestAPI:MaxRows by default and at most). */
export interface HistoryPage {
  skip?: number;
  take?: number;
}
