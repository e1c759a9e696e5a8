import type { FieldSpec as DeclaredField } from '../resources/field.js';
import type { ChildModel, ResourceField, ResourceModel } from '../resources/model.js';
import { uniqueIndexName } from '../resources/serving.js';
import { type SchemaSnapshot, type SnapshotColumn, normalType } from './schema-snapshot.js';
import { foldedIndexName, fullTextTableName, indexName, keyIndexName } from './spec.js';

/**
 * What a declaration needs of the schema, compared with what the migrations built: the steps of the next migration.
 * Names follow the scaffold's conventions (`ix_<table>_<column>`, `…_folded`, `ux_<table>_<column>`, `<table>_<column>_fts`,
 * `ix_<table>_list_key`), so a schema the scaffold or the sample made is found as made; the unique index's name is
 * the one the runtime maps a violation by (lib/resources/serving.ts).
 */

/** A column type: the expression a migration writes (`dateType` is the dialect's) and SQLite's word for it. */
export interface ColumnType {
  readonly code: string;
  readonly sqlite: string;
}

export interface PlannedColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly notNull: boolean;
  readonly defaultTo?: string | number | boolean;
  /** Why it is not NOT NULL though the declaration requires it (a column added to a table that has rows). */
  readonly note?: string;
  /** A child's column holding its parent's key: `table.column` of the parent, whose delete deletes the children. */
  readonly parent?: string;
}

export type Step =
  | { readonly kind: 'create-table'; readonly table: string; readonly key: string; readonly columns: readonly PlannedColumn[] }
  | { readonly kind: 'add-column'; readonly table: string; readonly column: PlannedColumn }
  | { readonly kind: 'drop-column'; readonly table: string; readonly column: string; readonly indexes: readonly string[]; readonly fullText: boolean; readonly why: string }
  | { readonly kind: 'list-index'; readonly table: string; readonly key: string; readonly name: string; readonly column: string }
  | { readonly kind: 'folded-index'; readonly table: string; readonly key: string; readonly name: string; readonly column: string }
  | { readonly kind: 'full-text'; readonly table: string; readonly key: string; readonly column: string }
  | { readonly kind: 'key-index'; readonly table: string; readonly key: string; readonly name: string }
  | { readonly kind: 'parent-index'; readonly table: string; readonly name: string; readonly column: string; readonly key: string }
  | {
    readonly kind: 'unique'; readonly table: string; readonly name: string; readonly column: string; readonly ignoreCase: boolean; readonly replaces: boolean;
    /** The tenant column the index leads with (unique within a tenant), of a tenant-owned resource. */
    readonly tenant?: string;
    /** The soft-delete column whose NULL the index is limited to (a deleted record's value is free), of a soft-deletable one. */
    readonly live?: string;
  }
  | { readonly kind: 'track-changes'; readonly table: string }
  /**
   * The existing records' derived values and totals, computed after a column for one was added to a table with rows
   * (`deriveStored`, given the declaration: `resource` is its export's name, `name` the resource's).
   */
  | {
    readonly kind: 'derive'; readonly resource: string; readonly name: string; readonly columns: readonly string[];
    /** The migration file's import of the declaration (`../invoice.js`); undefined when it is not found there. */
    readonly declaration?: string;
  };

/** What the plan leaves undone: drops and type changes not allowed by the flag. */
export interface Plan {
  readonly steps: Step[];
  readonly withheld: string[];
}

const TYPES = {
  integer: { code: "'integer'", sqlite: 'integer' },
  date: { code: 'dateType', sqlite: 'text' },
  bool: { code: 'boolType', sqlite: 'integer' },
  number: { code: 'numberType', sqlite: 'real' },
  money: { code: 'moneyType', sqlite: 'integer' },
} as const satisfies Record<string, ColumnType>;

const textType = (max: number | undefined): ColumnType =>
  (max ? { code: `'varchar(${max})'`, sqlite: `varchar(${max})` } : { code: "'text'", sqlite: 'text' });

/** The column type of a stored field. */
export function columnTypeOf(spec: DeclaredField): ColumnType {
  switch (spec.type) {
    case 'text': return textType(spec.max);
    case 'lookup': return spec.lookup?.id === 'text' ? textType(spec.max) : TYPES.integer;
    case 'decimal': return TYPES.number;
    case 'money': return TYPES.money;
    case 'date': return TYPES.date;
    case 'boolean': return TYPES.bool;
    default: return TYPES.integer;
  }
}

/** A constant default the store can fill rows from before with (a function default is the runtime's alone). */
function constantDefault(spec: DeclaredField): string | number | boolean | undefined {
  const value = spec.default ?? spec.initially;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
}

/** The column of a field, in a new table (`fresh`) or added to one that may have rows. */
function columnOf(f: ResourceField, fresh: boolean): PlannedColumn {
  const type = columnTypeOf(f.spec);
  if (f.spec.sum) return { name: f.column, type, notNull: true, defaultTo: 0 };
  if (!f.spec.required) return { name: f.column, type, notNull: false };
  if (fresh) return { name: f.column, type, notNull: true };
  const value = constantDefault(f.spec);
  if (value !== undefined && f.spec.type !== 'date' && f.spec.type !== 'money') return { name: f.column, type, notNull: true, defaultTo: value };
  return { name: f.column, type, notNull: false, note: `${f.name} is required, but the records made before this migration have no value: the column takes nulls` };
}

/** Every column of the resource's table, the key first, then the fields, the revision and the modified date. */
function columnsOf(model: ResourceModel, fresh: boolean): PlannedColumn[] {
  return [
    ...model.fields.filter((f) => f.stored).map((f) => columnOf(f, fresh)),
    { name: model.revision, type: TYPES.integer, notNull: true, defaultTo: 1 },
    { name: model.modified, type: TYPES.date, notNull: true },
    // A soft-deletable resource's mark (docs/soft-delete.md): NULL for a record not deleted.
    ...(model.softDelete ? [{ name: model.softDelete, type: TYPES.date, notNull: false }] : []),
    // A tenant-owned resource's tenant (docs/tenancy.md): '' for the records made before, given a tenant when tenancy is turned on.
    ...(model.tenant ? [{ name: model.tenant, type: textType(undefined), notNull: true, defaultTo: '' }] : []),
  ];
}

/** The indexes a table's fields need, as steps: lists' sort and filter, prefix filters, contains, unique values. */
function indexStepsOf(model: ResourceModel): Step[] {
  const { table, keyColumn: key } = model;
  const stored = model.fields.filter((f) => f.stored);
  return [
    ...stored.filter((f) => f.spec.sortable || f.spec.filter)
      .map((f): Step => ({ kind: 'list-index', table, key, name: indexName({ table }, f), column: f.column })),
    ...stored.filter((f) => f.spec.filter && f.spec.type === 'text')
      .map((f): Step => ({ kind: 'folded-index', table, key, name: foldedIndexName({ table }, f), column: f.column })),
    ...stored.filter((f) => f.spec.contains).map((f): Step => ({ kind: 'full-text', table, key, column: f.column })),
    ...stored.filter((f) => f.spec.unique).map((f): Step => ({
      kind: 'unique', table, name: uniqueIndexName(table, f.column), column: f.column, ignoreCase: f.spec.unique!.ignoreCase, replaces: false,
      ...(model.tenant ? { tenant: model.tenant } : {}), ...(model.softDelete ? { live: model.softDelete } : {}),
    })),
    { kind: 'key-index', table, key, name: keyIndexName({ table }) },
    { kind: 'track-changes', table },
  ];
}

/** The schema object a step makes, by which the snapshot shows it made already. */
function madeBy(step: Step): string {
  switch (step.kind) {
    case 'list-index': case 'folded-index': case 'key-index': case 'unique': case 'parent-index': return step.name;
    case 'full-text': return fullTextTableName({ table: step.table }, step);
    case 'track-changes': return `${step.table}_list_change_insert`;
    default: return '';
  }
}

/** The indexes the conventions give `column` of `table`, of those the schema has: a drop of the column drops them first. */
function indexesOnColumn(table: string, column: string, schema: SchemaSnapshot): string[] {
  return [indexName({ table }, { column }), foldedIndexName({ table }, { column }), uniqueIndexName(table, column)].filter((n) => schema.objects.has(n));
}

/** Whether an index keyed by `column`'s folded form (`lower(column)`) is on `table`: it serves a prefix filter. */
const foldedKey = (column: string) => new RegExp(`\\(\\s*lower\\s*\\(\\s*["\`]?${column}["\`]?\\s*\\)`, 'i');

/**
 * Whether the schema serves what `step` makes, by its name or, for list and folded indexes, by any index of the table
 * that leads with the column or its folded form (a hand-written migration may have named it otherwise, or a unique
 * index serves the list too).
 */
function served(step: Step, schema: SchemaSnapshot): boolean {
  if (schema.objects.has(madeBy(step))) return true;
  if (step.kind === 'list-index' || step.kind === 'parent-index') return schema.indexes.some((i) => i.table === step.table && i.first === step.column);
  if (step.kind === 'folded-index') return schema.indexes.some((i) => i.table === step.table && i.first === undefined && foldedKey(step.column).test(i.sql));
  return false;
}

/** A unique index on lower(column) ignores case; the snapshot keeps the statement that made it. */
const ignoresCase = (statement: string) => /[(,]\s*lower\s*\(/i.test(statement);

/** Whether the statement that made a unique index gives it the shape `step` asks: case, leading tenant, partial. */
const uniqueShapeOf = (statement: string, step: { ignoreCase: boolean; tenant?: string; live?: string }) =>
  ignoresCase(statement) === step.ignoreCase
  && /\(\s*"?tenant_id"?\s*,/i.test(statement) === Boolean(step.tenant)
  && /\bwhere\b[^)]*\bis\s+null/i.test(statement) === Boolean(step.live);

/** One table as a declaration needs it: its columns (the key apart) and the indexes its fields ask for. */
interface TableNeeds {
  readonly table: string;
  readonly key: string;
  columns(fresh: boolean): PlannedColumn[];
  readonly indexes: Step[];
}

const headerNeeds = (model: ResourceModel): TableNeeds => ({
  table: model.table, key: model.keyColumn, columns: (fresh) => columnsOf(model, fresh), indexes: indexStepsOf(model),
});

/**
 * A child collection's table: its key, its parent's key (a NOT NULL reference whose delete deletes the children), its
 * stored fields, and the index its reads, sums and deletes by parent take (parent, key).
 */
const childNeeds = (model: ResourceModel, child: ChildModel): TableNeeds => ({
  table: child.table,
  key: child.keyColumn,
  columns: (fresh) => [
    { name: child.parentColumn, type: TYPES.integer, notNull: true, parent: `${model.table}.${model.keyColumn}` },
    ...child.fields.filter((f) => f.stored).map((f) => columnOf(f, fresh)),
  ],
  indexes: [{ kind: 'parent-index', table: child.table, name: `ix_${child.table}_parent`, column: child.parentColumn, key: child.keyColumn }],
});

/** The steps bringing one table from what `schema` has to what its declaration needs. */
function planTable(needs: TableNeeds, schema: SchemaSnapshot, allowDrop: boolean, plan: Plan): void {
  const { table, key } = needs;
  const existing = schema.tables.get(table);
  if (!existing) {
    plan.steps.push({ kind: 'create-table', table, key, columns: needs.columns(true) }, ...needs.indexes);
    return;
  }
  const declared = needs.columns(false);
  const drop = (column: string, why: string) => {
    if (!allowDrop) return void plan.withheld.push(`${table}.${column}: ${why}`);
    const fullText = schema.objects.has(fullTextTableName({ table }, { column }));
    plan.steps.push({ kind: 'drop-column', table, column, indexes: indexesOnColumn(table, column, schema), fullText, why });
  };
  for (const column of declared) {
    const found: SnapshotColumn | undefined = existing.get(column.name);
    if (!found) {
      plan.steps.push({ kind: 'add-column', table, column });
    } else if (normalType(column.type.sqlite) !== found.type) {
      drop(column.name, `its type changes from ${found.type} to ${column.type.sqlite} (a drop and an add: its values go)`);
      if (allowDrop) plan.steps.push({ kind: 'add-column', table, column });
    }
  }
  const names = new Set([key, ...declared.map((c) => c.name)]);
  for (const column of existing.keys()) if (!names.has(column)) drop(column, 'no field of the declaration is stored in it');
  const dropped = new Set(plan.steps.filter((s) => s.kind === 'drop-column' && s.table === table).map((s) => (s as { column: string }).column));
  for (const step of needs.indexes) {
    const made = schema.objects.get(madeBy(step));
    const column = 'column' in step && typeof step.column === 'string' ? step.column : undefined;
    if (!served(step, schema) || (column && dropped.has(column))) {
      plan.steps.push(step);
    } else if (step.kind === 'unique' && made !== undefined && !uniqueShapeOf(made, step)) {
      plan.steps.push({ ...step, replaces: true });
    }
  }
}

/** The steps bringing the schema in line with `models` (one module's resources): none when it is. */
export function planSchema(models: readonly ResourceModel[], schema: SchemaSnapshot, options: { allowDrop?: boolean } = {}): Plan {
  const plan: Plan = { steps: [], withheld: [] };
  for (const model of models) {
    const from = plan.steps.length;
    for (const needs of [headerNeeds(model), ...model.children.map((child) => childNeeds(model, child))]) planTable(needs, schema, options.allowDrop ?? false, plan);
    // A derived field or a total added to a table that has rows: the rows made before get their values.
    const computed = [model, ...model.children].flatMap((t) => t.fields.filter((f) => f.stored && (f.spec.derived || f.spec.sum)).map((f) => `${t.table}.${f.column}`));
    const added = plan.steps.slice(from).flatMap((s) => (s.kind === 'add-column' && computed.includes(`${s.table}.${s.column.name}`) ? [`${s.table}.${s.column.name}`] : []));
    if (added.length) plan.steps.push({ kind: 'derive', resource: model.camel, name: model.name, columns: added, declaration: `../${model.name}.js` });
  }
  return plan;
}
