import { currentAccess, currentErrors } from '../../envelope/request-scope.js';
import type { LookupTable } from '../../lookup/lookup-table.js';
import type { SqlValues } from '../../storage/sql-values.js';
import type { WireRecord } from '../field.js';
import { unknownReference } from '../messages.js';
import { type ResourceField, type ResourceModel, targetModel } from '../model.js';
import { resolveIn } from '../reach.js';
import type { Runtime } from './context.js';
import type { WriteContext } from './settle.js';
import { TableIo } from './table-io.js';
import type { Draft, Row } from './values.js';

/** A referenced resource's rows as records, one reader per model and store. */
const readers = new WeakMap<ResourceModel, WeakMap<SqlValues, TableIo>>();
function recordOf(model: ResourceModel, values: SqlValues, row: Row): WireRecord {
  const byValues = readers.get(model) ?? readers.set(model, new WeakMap()).get(model)!;
  const io = byValues.get(values) ?? byValues.set(values, new TableIo(values, model, model.table)).get(values)!;
  return { [model.key]: row[model.keyColumn] as number, ...io.fromColumns(row) };
}

/** The lookup tables the lookup fields name, from the process-wide cache (a table loads on first use). */
async function lookupTables(runtime: Runtime, fields: readonly ResourceField[]): Promise<Map<string, LookupTable | undefined>> {
  const tables = new Map<string, LookupTable | undefined>();
  for (const f of fields) {
    const table = f.spec.lookup?.table;
    if (table && !tables.has(table)) tables.set(table, (await runtime.lookups.get(table))?.table);
  }
  return tables;
}

/**
 * What a write knows before it starts, so that settling the record needs no query (on SQLite it runs inside the
 * transaction, which holds the only connection): the lookup tables of its lookup fields, and the records its
 * reference fields name in `input`, each resolved as the caller may read it. An unknown reference (or one out of
 * reach: the same answer) is recorded as `<Resource>_Unknown<Other>` on its property; the caller checks the errors.
 */
export async function writeContext(
  runtime: Runtime, operation: string, takes: WriteContext['takes'], input: Draft, now = new Date(), own: readonly ResourceField[] = runtime.model.fields,
): Promise<WriteContext> {
  const { model } = runtime;
  const fields = [...model.fields, ...model.children.flatMap((c) => c.fields)];
  const references = new Map<string, WireRecord | undefined>();
  // `own`: the fields `input` holds (a child write's are the child's), whose references are resolved.
  for (const f of own) {
    const id = input[f.name];
    if (f.spec.type !== 'reference' || id == null) continue;
    const target = targetModel(f.spec.reference!);
    const row = await resolveIn<Row>(runtime.db, target, id as number);
    if (row) references.set(f.name, recordOf(target, runtime.storage.values, row));
    else currentErrors().add(unknownReference(model.pascal, target, id, f.name));
  }
  return { operation, takes, now, caller: currentAccess(), lookups: await lookupTables(runtime, fields), references };
}
