import Big from 'big.js';
import { type QueryExecutorProvider, sql } from 'kysely';
import type { SqlValues } from '../storage/sql-values.js';
import type { ChildModel, ResourceField, ResourceModel } from './model.js';
import { type Settled, derive } from './runtime/settle.js';
import { TableIo } from './runtime/table-io.js';
import { type Draft, type Row, sameValue } from './runtime/values.js';

/** Rows read and written at a time: bounded memory and statement size, whatever the table's size. */
const BATCH = 500;

/** A resource, or what of one this needs: its model (a migration passes the declaration). */
interface Declared {
  readonly model: ResourceModel;
}

/** The table's rows in key order, `BATCH` at a time, each batch handed to `work`. */
async function inBatches(db: QueryExecutorProvider, table: string, key: string, work: (rows: Row[]) => Promise<void>): Promise<void> {
  for (let last: unknown = null; ;) {
    const after = last === null ? sql`` : sql`where ${sql.ref(key)} > ${last}`;
    const { rows } = await sql<Row>`select * from ${sql.table(table)} ${after} order by ${sql.ref(key)} limit ${BATCH}`.execute(db);
    if (!rows.length) return;
    await work(rows);
    last = rows.at(-1)![key];
  }
}

/**
 * Whether the row holds `f`'s column and every column it is derived from (the key counts): a migration that runs
 * before the one adding either finds it missing, and leaves the field as it is.
 */
function computable(f: ResourceField, fields: readonly ResourceField[], key: string, row: Row): boolean {
  return f.column in row && (f.spec.derived?.from ?? []).every((name) => name === key || fields.some((input) => input.name === name && input.column in row));
}

/** Writes the fields of `after` that differ from `before` (in wire values) into the row `id`; answers whether it wrote. */
async function writeChanged(db: QueryExecutorProvider, io: TableIo, fields: readonly ResourceField[], id: unknown, before: Draft, after: Draft): Promise<boolean> {
  const changed = io.stored.filter((f) => fields.includes(f.field) && !sameValue(before[f.field.name], after[f.field.name]));
  if (!changed.length) return false;
  await sql`update ${sql.table(io.shape.table)} set ${sql.join(changed.map((f) => sql`${sql.ref(f.field.column)} = ${f.write(after[f.field.name], f.field.name)}`))}
    where ${sql.ref(io.shape.keyColumn)} = ${id}`.execute(db);
  return true;
}

/** The settled shape `derive` takes: the fields, no rules (nothing is being written by anyone). */
const settledOf = (fields: readonly ResourceField[], codes: string, key: string): Settled => ({ fields, rules: [], codes, key });

/** A child collection's derived fields (`derived`), computed again for each of its rows. */
async function deriveChildren(db: QueryExecutorProvider, values: SqlValues, model: ResourceModel, child: ChildModel, derived: readonly ResourceField[]): Promise<number> {
  if (!derived.length) return 0;
  const io = new TableIo(values, child, child.table);
  const settled = settledOf(child.fields, model.pascal, child.key);
  let written = 0;
  await inBatches(db, child.table, child.keyColumn, async (rows) => {
    for (const row of rows) {
      const before = io.fromColumns(row);
      const after = { ...before };
      derive(settled, after, Number(row[child.keyColumn]));
      const fields = derived.filter((f) => computable(f, child.fields, child.key, row));
      if (await writeChanged(db, io, fields, row[child.keyColumn], before, after)) written++;
    }
  });
  return written;
}

/**
 * The fields to compute: those of `columns` (`table.column`; all derived fields and totals when undefined), and what
 * follows from them: a total over a child field computed, a field of the record derived from one computed.
 */
function chosen(model: ResourceModel, columns: readonly string[] | undefined) {
  const listed = (table: string, f: ResourceField) => f.stored && (f.spec.derived || f.spec.sum) && (!columns || columns.includes(`${table}.${f.column}`));
  const children = new Map(model.children.map((c) => [c, c.fields.filter((f) => f.spec.derived && listed(c.table, f))]));
  const own = new Set(model.fields.filter((f) => listed(model.table, f) || (f.spec.sum && children.get(model.children.find((c) => c.property === f.spec.sum!.children)!)!
    .some((c) => c.name === f.spec.sum!.field))));
  for (let grown = true; grown;) {
    grown = false;
    for (const f of model.fields) {
      if (!f.stored || !f.spec.derived || own.has(f) || !f.spec.derived.from.some((name) => [...own].some((o) => o.name === name))) continue;
      own.add(f);
      grown = true;
    }
  }
  return { children, own: model.fields.filter((f) => own.has(f)) };
}

/**
 * Computes again, for the stored records of a resource, what the layer computes on each write of them: its child
 * collections' derived fields, its totals over its children (summed in SQL, exactly) and its own derived fields,
 * writing only the values that differ. A migration that adds a derived field or a total to a table that has rows calls
 * it after adding the column, naming the columns it added (`restlayer migration make` writes the call), so the records
 * made before hold the values a write would have given them; what follows from those is computed too (a total over a
 * new line amount, a field derived from that total). A field whose inputs' columns a later migration adds is left as
 * it is. It is no write of the records: no revision, modified date or audit entry changes (their representation
 * changes, and with it their ETag: the declaration's fields and derivations are part of every record's tag,
 * lib/resources/runtime/version-tag.ts). 500 rows are read at a time, each changed one updated by its own statement, inside
 * the migration's transaction where the store has one. Answers how many rows it changed.
 */
export async function deriveStored(db: QueryExecutorProvider, values: SqlValues, resource: Declared, columns?: readonly string[]): Promise<number> {
  const { model } = resource;
  const { children, own } = chosen(model, columns);
  let written = 0;
  for (const [child, derived] of children) written += await deriveChildren(db, values, model, child, derived);
  const sums = own.filter((f) => f.spec.sum);
  if (!own.length) return written;
  const io = new TableIo(values, model, model.table);
  const settled = settledOf(model.fields, model.pascal, model.key);
  await inBatches(db, model.table, model.keyColumn, async (rows) => {
    const ids = rows.map((r) => r[model.keyColumn]);
    // Each total of the batch's records, from their children as stored now (children just derived included).
    const totals = new Map<string, Map<string, unknown>>();
    for (const f of sums) {
      const child = model.children.find((c) => c.property === f.spec.sum!.children)!;
      const summed = child.fields.find((c) => c.name === f.spec.sum!.field)!;
      const { rows: found } = await sql<{ parent: unknown; total: unknown }>`select ${sql.ref(child.parentColumn)} as parent, sum(${sql.ref(summed.column)}) as total
        from ${sql.table(child.table)} where ${sql.ref(child.parentColumn)} in (${sql.join(ids)}) group by ${sql.ref(child.parentColumn)}`.execute(db);
      totals.set(f.name, new Map(found.map((r) => [String(r.parent), r.total])));
    }
    for (const row of rows) {
      const id = row[model.keyColumn];
      const before = io.fromColumns(row);
      const after: Draft = { ...before };
      for (const f of sums) after[f.name] = new Big(values.toMoney(totals.get(f.name)!.get(String(id)) as string | number | undefined)).toNumber();
      derive(settled, after, Number(id));
      const fields = own.filter((f) => (f.spec.sum ? f.column in row : computable(f, model.fields, model.key, row)));
      if (await writeChanged(db, io, fields, id, before, after)) written++;
    }
  });
  return written;
}
