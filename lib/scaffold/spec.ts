import { type ServiceNames, serviceNames, snakeCase } from './names.js';
import { layerRoutesUnder, listOptionNames, reservedColumn, reservedTable, takenServiceKey } from './reserved-names.js';
import { ScaffoldError } from './scaffold-error.js';

export const FIELD_TYPES = ['text', 'integer', 'decimal', 'money', 'date', 'boolean', 'lookup'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** One field of a scaffolded service, as `--field name:type[:option...]` gave it. */
export interface FieldSpec {
  /** The wire name (camelCase). */
  name: string;
  column: string;
  type: FieldType;
  /** For `lookup`: the lookup table type whose active entries are the valid values. */
  lookup?: string;
  /** For `lookup` with `ids=text`: the table's ids are text (`EUR`), not integers. */
  lookupIds?: 'text';
  /**
   * `derived=quantity*price`: computed from other fields of the record on every write (read-only), in decimal
   * arithmetic: the fields, and the operator between them (`*`, or `+` and `-`), left to right.
   */
  derived?: { readonly from: readonly string[]; readonly operators: readonly ('*' | '+' | '-')[] };
  required: boolean;
  /** For `text`: the most characters it takes (a `varchar(max)` column). */
  max?: number;
  sortable: boolean;
  filterable: boolean;
  /** No two records hold the same value: a unique index, and a duplicate is a 409 Entity_Duplicate on the field. */
  unique: boolean;
}

/** A money total the parent keeps of one money field of its children (`--child-total line:amount` → `amountTotal`, `line:lineTotal` → `linesTotal`, `line:lineTotal:subTotal` → `subTotal`). */
export interface TotalSpec {
  /** The child's money field summed. */
  of: FieldSpec;
  /** The parent's read-only property (`amountTotal`) and its column (`amount_total`). */
  name: string;
  column: string;
}

/**
 * A child collection (`--child line`): records that belong to one parent record and are written with it as one
 * document. Its names are those of a service named `<parent>-<child>` (table `purchase_order_line`, id
 * `purchaseOrderLineId`); `segment` is its route folder under the parent's item (`/purchase-order/{id}/line`).
 */
export interface ChildSpec extends ServiceNames {
  /** `line`: the route segment. */
  segment: string;
  /** `Line`: the service's methods (`readLines`, `createLine`). */
  short: string;
  /** `lines`: the parent's array property, and the plural of the methods. */
  plural: string;
  fields: FieldSpec[];
  totals: TotalSpec[];
}

export interface ServiceSpec extends ServiceNames {
  fields: FieldSpec[];
  /** The child collection, when the service is a master-detail document. */
  child?: ChildSpec;
  /** `--action NAME`: actions of the record, each `POST /<name>/{id}/<action>` (their run is the team's to write). */
  actions?: readonly string[];
  /** The command line that made it, for the one-line header of every generated file. */
  command: string;
}

const usage = (text: string) => new ScaffoldError(text, 'usage');

const kebabName = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const camelName = /^[a-z][a-zA-Z0-9]*$/;
const lookupType = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** PostgreSQL cuts longer identifiers silently; two index names cut alike would collide. */
export const MAX_IDENTIFIER = 63;
/** PostgreSQL's limit for `varchar(n)`. */
const MAX_TEXT = 10_485_760;

/**
 * Names the layer already uses besides its route files (those: `layerRoutesUnder`): its own modules (`auth`,
 * `idempotency`: a module name keys a migration history, see `allModules`) and the paths it serves without a route
 * file. Service keys: `takenServiceKey`.
 */
const reservedServiceNames = new Map<string, string>([
  ['auth', "the layer's own module and routes"],
  ['idempotency', "the layer's Idempotency-Key module"],
  ['docs', "the layer's API reference"],
  ['metrics', "the layer's metrics"],
]);

/** Field names every generated service has already, or that the list criteria and the JSON bodies keep for themselves. */
function reservedFieldNames(names: ServiceNames): Map<string, string> {
  return new Map([
    [names.id.toLowerCase(), 'the id of every record'],
    ['revisionnumber', 'the concurrency check of every record'],
    ['modifieddate', 'the time of every change'],
    ...listOptionNames.map((name): [string, string] => [name, 'a list option']),
    ...['constructor', 'prototype'].map((name): [string, string] => [name, 'refused as a JSON property']),
  ]);
}

const typeList = 'text, integer, decimal, money, date, boolean or lookup=<table>';
const optionList = 'required, max=N (text), sortable, filterable, unique, ids=text (lookup), derived=a*b or a+b-c (integer, decimal, money)';

/** `quantity*price`, `subTotal+freight-discount`: the fields a derived value is made of, and one kind of operator. */
function parseDerived(where: string, name: string, text: string | undefined): NonNullable<FieldSpec['derived']> {
  const parts = (text ?? '').split(/([*+-])/).map((p) => p.trim());
  const from = parts.filter((_, i) => i % 2 === 0);
  const operators = parts.filter((_, i) => i % 2 === 1) as ('*' | '+' | '-')[];
  if (from.length < 2 || !from.every((f) => camelName.test(f))) {
    throw usage(`${where}: write derived=<field><operator><field>..., fields of the record and *, + or - (derived=quantity*price)`);
  }
  // Left to right with no precedence: a*b+c would read as (a*b)+c to some and a*(b+c) to others.
  if (operators.includes('*') && operators.some((o) => o !== '*')) throw usage(`${where}: use one kind of operator, * alone or + and -: derived=a*b*c or derived=a+b-c`);
  if (from.includes(name)) throw usage(`${where}: ${name} cannot be derived from itself`);
  return { from, operators };
}

/** Reads `name:type[:option...]`; every problem is a one-line usage error naming the argument. */
export function parseField(arg: string, flag = '--field'): FieldSpec {
  const where = `${flag} '${arg}'`;
  const [name, typeText, ...options] = arg.split(':');
  if (!camelName.test(name)) {
    throw usage(`${where}: the field name must be camelCase, a letter first (e.g. unitPrice)${name ? '' : '; write name:type'}`);
  }
  if (!typeText) throw usage(`${where}: give a type after the name: ${typeList}`);
  const [typeName, lookup, ...rest] = typeText.split('=');
  if (!(FIELD_TYPES as readonly string[]).includes(typeName)) throw usage(`${where}: unknown type '${typeText}' (use ${typeList})`);
  const type = typeName as FieldType;
  if (type === 'lookup') {
    if (lookup === undefined || rest.length || !lookupType.test(lookup)) {
      throw usage(`${where}: write lookup=<table>, the lookup table's type (e.g. lookup=sales-territory)`);
    }
  } else if (lookup !== undefined) throw usage(`${where}: unknown type '${typeText}' (use ${typeList})`);

  const field: FieldSpec = { name, column: snakeCase(name), type, required: false, sortable: false, filterable: false, unique: false };
  if (type === 'lookup') field.lookup = lookup;
  const seen = new Set<string>();
  for (const option of options) {
    const [key, value, ...extra] = option.split('=');
    if (seen.has(key)) throw usage(`${where}: option '${key}' is given twice`);
    seen.add(key);
    if (key === 'max') {
      if (type !== 'text' && type !== 'lookup') throw usage(`${where}: max=N applies to text fields (and lookups with ids=text) only`);
      const max = Number(value);
      if (extra.length || !/^\d+$/.test(value ?? '') || max < 1 || max > MAX_TEXT) {
        throw usage(`${where}: max must be a whole number of characters from 1 to ${MAX_TEXT} (max=100)`);
      }
      field.max = max;
    } else if (key === 'ids' && type === 'lookup' && value === 'text' && !extra.length) {
      field.lookupIds = 'text';
    } else if (key === 'derived' && !extra.length) {
      if (type !== 'integer' && type !== 'decimal' && type !== 'money') throw usage(`${where}: derived applies to integer, decimal and money fields`);
      field.derived = parseDerived(where, name, value);
    } else if ((key === 'required' || key === 'sortable' || key === 'filterable' || key === 'unique') && value === undefined) {
      if (key === 'unique' && (type === 'boolean' || type === 'lookup' || type === 'money')) throw usage(`${where}: unique applies to text, integer, decimal and date fields`);
      field[key] = true;
    } else {
      throw usage(`${where}: unknown option '${option}' (use ${optionList})`);
    }
  }
  if (field.max !== undefined && type === 'lookup' && field.lookupIds !== 'text') throw usage(`${where}: max=N applies to a lookup with ids=text only`);
  if (field.derived && (field.required || field.unique)) throw usage(`${where}: a derived field is computed on every write: not required, not unique`);
  return field;
}

/**
 * Each derived field's fields: numbers of the same record, declared before it (a value is derived in declared order,
 * from values already there).
 */
export function checkDerived(fields: readonly FieldSpec[], flag: string, args: readonly string[]): void {
  fields.forEach((field, i) => {
    for (const from of field.derived?.from ?? []) {
      const source = fields.slice(0, i).find((f) => f.name === from);
      if (!source || !['integer', 'decimal', 'money'].includes(source.type)) {
        throw usage(`${flag} '${args[i]}': ${from} is no integer, decimal or money field given before ${field.name}`);
      }
      // An integer column takes whole numbers only: a fraction would be refused by PostgreSQL and kept by SQLite.
      if (field.type === 'integer' && source.type !== 'integer') throw usage(`${flag} '${args[i]}': an integer is derived from integers only (${from} is ${source.type})`);
    }
  });
}

/** The whole service: its names from `name`, its fields from the `--field` arguments, checked together. */
export function serviceSpec(name: string, fieldArgs: readonly string[], command: string): ServiceSpec {
  if (!kebabName.test(name)) {
    throw usage(`service name '${name}' must be kebab-case: lower-case words of letters and digits joined by '-' (e.g. purchase-order)`);
  }
  const reservedName = reservedServiceNames.get(name);
  if (reservedName) throw usage(`service name '${name}' is taken by ${reservedName}; choose another`);
  const layerRoutes = layerRoutesUnder(name);
  if (layerRoutes.length) throw usage(`service name '${name}' is taken by the layer's routes under /${name} (${layerRoutes.join(', ')}); choose another`);
  const names = serviceNames(name);
  const key = takenServiceKey(names.camel);
  if (key) throw usage(`service name '${name}' would take ${key}; choose another`);
  const table = reservedTable(names.table);
  if (table) throw usage(`service name '${name}' would make the table ${names.table}, a name kept for ${table}; choose another`);
  if (!fieldArgs.length) throw usage('give the fields of the service: --field name:type[:option...], once per field');
  const reserved = reservedFieldNames(names);
  const fields: FieldSpec[] = [];
  const byName = new Map<string, string>();
  const byColumn = new Map<string, string>();
  for (const arg of fieldArgs) {
    const field = parseField(arg);
    const why = reserved.get(field.name.toLowerCase());
    if (why) throw usage(`--field '${arg}': ${field.name} is reserved (${why})`);
    const system = reservedColumn(field.column);
    if (system) throw usage(`--field '${arg}': its column ${field.column} is ${system}; choose another field name`);
    // Request property names match case-insensitively, so `name` and `Name` would be one property.
    const twin = byName.get(field.name.toLowerCase()) ?? byColumn.get(field.column);
    if (twin) throw usage(`--field '${arg}' and --field '${twin}' name the same field (names match case-insensitively)`);
    byName.set(field.name.toLowerCase(), arg);
    byColumn.set(field.column, arg);
    if ((field.sortable || field.filterable) && indexName(names, field) === keyIndexName(names)) {
      throw usage(`--field '${arg}': its index would be ${keyIndexName(names)}, the service's index of the id alone; choose another field name`);
    }
    fields.push(field);
  }
  checkDerived(fields, '--field', fieldArgs);
  // The FTS names are SQLite's, which takes any length.
  const identifiers = [
    names.table, names.idColumn, `restlayer_migration_${names.table}`, keyIndexName(names),
    ...fields.flatMap((f) => [f.column, indexName(names, f)]), ...foldedFields({ fields }).map((f) => foldedIndexName(names, f)),
    ...fullTextFields({ fields }).map((f) => trigramIndexName(names, f)), ...uniqueFields({ fields }).map((f) => uniqueIndexName(names, f)),
  ];
  const long = identifiers.find((identifier) => identifier.length > MAX_IDENTIFIER);
  if (long) throw usage(`the SQL name ${long} is longer than ${MAX_IDENTIFIER} characters: shorten the service or field name`);
  // One field's index may bear the name another's trigram or folded index is given (`titleTrigram` beside `title`).
  const schemaNames = [names.table, ...indexNames({ table: names.table, fields })];
  const twice = schemaNames.find((name, i) => schemaNames.indexOf(name) !== i);
  if (twice) throw usage(`two of the service's tables or indexes would be named ${twice}: choose another field name`);
  return { ...names, fields, command };
}

/** The index a sortable or filterable field gets. */
export const indexName = (names: Pick<ServiceNames, 'table'>, field: Pick<FieldSpec, 'column'>) => `ix_${names.table}_${field.column}`;

/** Fields that need an index: lists sort or filter on them. */
export const indexedFields = (spec: Pick<ServiceSpec, 'fields'>) => spec.fields.filter((f) => f.sortable || f.filterable);

/** The index of a text field's folded form, which serves prefix filters (SW). */
export const foldedIndexName = (names: Pick<ServiceNames, 'table'>, field: Pick<FieldSpec, 'column'>) => `${indexName(names, field)}_folded`;

/** Text fields lists filter on: they get a folded index too. */
export const foldedFields = (spec: Pick<ServiceSpec, 'fields'>) => spec.fields.filter((f) => f.filterable && f.type === 'text');

/** The index of the id alone (SQLite), which deep pages with no filter walk instead of the table's rows. */
export const keyIndexName = (names: Pick<ServiceNames, 'table'>) => `ix_${names.table}_list_key`;

/**
 * The shortest `max` of a text field that gets a trigram index for CN. A trigram index costs every write (on SQLite
 * three triggers and an FTS row per record), and a shorter text is a code, looked up whole (EQ, In) or by its start
 * (SW, the folded index): a part inside it is seldom asked for, and a scan of a short column is cheap.
 */
const FULL_TEXT_MIN_MAX = 50;

/** Filterable text fields long enough to be searched inside: criterion CN reads their trigram index. */
export const fullTextFields = (spec: Pick<ServiceSpec, 'fields'>) =>
  foldedFields(spec).filter((f) => f.max === undefined || f.max >= FULL_TEXT_MIN_MAX);

/**
 * The names `createFullTextIndex` (lib/storage/list-indexes.ts) gives a field's trigram index. SQLite: the FTS5 table,
 * the shadow tables FTS5 keeps beside it (external content: no `_content`) and its three triggers; PostgreSQL: the
 * GIN index.
 */
export const fullTextNames = (names: Pick<ServiceNames, 'table'>, field: Pick<FieldSpec, 'column'>) => {
  const fts = fullTextTableName(names, field);
  return [
    fts, ...['data', 'idx', 'docsize', 'config', 'insert', 'delete', 'update'].map((suffix) => `${fts}_${suffix}`),
    trigramIndexName(names, field),
  ];
};

/** SQLite's FTS5 table of a field's trigram index. */
export const fullTextTableName = (names: Pick<ServiceNames, 'table'>, field: Pick<FieldSpec, 'column'>) => `${names.table}_${field.column}_fts`;

/** PostgreSQL's GIN index of a field's trigrams. */
const trigramIndexName = (names: Pick<ServiceNames, 'table'>, field: Pick<FieldSpec, 'column'>) => `ix_${names.table}_${field.column}_trigram`;

/** Fields no two records share a value of. */
export const uniqueFields = (spec: Pick<ServiceSpec, 'fields'>) => spec.fields.filter((f) => f.unique);

/** The unique index of a field: the module declares it in `uniqueKeys`, so a duplicate is reported on the field. */
export const uniqueIndexName = (names: Pick<ServiceNames, 'table'>, field: Pick<FieldSpec, 'column'>) => `ux_${names.table}_${field.column}`;

/** Every table, index and trigger the service's migration creates, but the service's table itself. */
export const indexNames = (spec: Pick<ServiceSpec, 'table' | 'fields'>) => [
  ...indexedFields(spec).map((f) => indexName(spec, f)), ...foldedFields(spec).map((f) => foldedIndexName(spec, f)), keyIndexName(spec),
  ...uniqueFields(spec).map((f) => uniqueIndexName(spec, f)),
  ...fullTextFields(spec).flatMap((f) => fullTextNames(spec, f)),
];
