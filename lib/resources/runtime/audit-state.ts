import { type AuditState, prefixed } from '../../audit/diff.js';
import type { ChildRuntime, Runtime } from './context.js';
import type { Draft, Row } from './values.js';

/**
 * A record's audit state: its stored fields as the wire shows them (joined ones are another record's) and its
 * revision. The key and the modified date are not changes (the entry names the record and has its own time).
 */
export function recordState(record: Draft, revisionNumber: number): AuditState {
  return { ...record, revisionNumber };
}

/** The audit state of a `select *` row of the resource's table. */
export function rowState(runtime: Runtime, row: Row): AuditState {
  return recordState(runtime.table.fromColumns(row), Number(row[runtime.model.revision]));
}

/** Children's audit states, named by their key: `lines[113045].orderQty`. `select *` rows of the child's table. */
export function childrenState(child: ChildRuntime, rows: readonly Row[]): AuditState {
  return Object.assign({}, ...rows.map((r) => prefixed(`${child.model.property}[${String(r[child.model.keyColumn])}].`, child.table.fromColumns(r))));
}
