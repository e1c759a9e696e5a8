import { upperFirst } from '../names.js';
import type { FieldSpec, ServiceSpec } from '../spec.js';

/**
 * Pieces of generated TypeScript shared by the templates. Generated files import the layer only by its public entry
 * points (`restlayer`, `restlayer/client`, `restlayer/testing`), and the project's own files by relative paths the
 * writer computes from the project's layout (lib/scaffold/layout.ts).
 */

/** Where one generated file is, as its imports of the project's own files need it. */
export interface FileContext {
  /** The import specifier, from this file, of the project's module list file (it exports `modules`, `route`, `application`). */
  modules: string;
  /** The import specifier, from this file, of a file of the service's folder, named without extension (`purchase-order-models`). */
  service(name: string): string;
}

/** One template: the content of one file of a new service. */
export type Template = (spec: ServiceSpec, at: FileContext) => string;

/** The one line every generated file starts with. */
export const header = (spec: ServiceSpec) => `// Made by \`${spec.command}\`; the code is yours to edit: nothing regenerates it.\n`;

/** Lines joined with newlines, skipping the `false`/`undefined` of conditional lines. */
export const lines = (...parts: (string | false | undefined)[]) => parts.filter((p): p is string => typeof p === 'string').join('\n');

/** `import { a, b } from 'x';`, the names in ASCII order as the project writes them (`type X` sorts as X). */
export function importLine(names: (string | false | undefined)[], from: string, typeOnly = false): string | false {
  const kept = names.filter((n): n is string => Boolean(n));
  if (!kept.length) return false;
  const key = (name: string) => name.replace(/^type /, '');
  const sorted = [...new Set(kept)].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return `import ${typeOnly ? 'type ' : ''}{ ${sorted.join(', ')} } from '${from}';`;
}

/** `text` values travel as strings; dates as Date on both sides of the proxy, as ISO 8601 text on the wire. */
export function tsType(field: FieldSpec): string {
  switch (field.type) {
    case 'text': return 'string';
    case 'date': return 'Date';
    case 'boolean': return 'boolean';
    default: return 'number';
  }
}

/** The JSON form of a value (what tests send and read). */
export const jsonType = (field: FieldSpec) => (field.type === 'date' ? 'string' : tsType(field));

/** The superstruct struct of the field's value (limits included), before any optional/maybe. */
function valueStructOf(field: FieldSpec): string {
  switch (field.type) {
    case 'text': {
      const limits = [field.required && 'min: 1', field.max && `max: ${field.max}`].filter(Boolean);
      return limits.length ? `text({ ${limits.join(', ')} })` : 'text()';
    }
    case 'integer': case 'lookup': return 'integer(INT32)';
    case 'decimal': return 'decimal()';
    case 'money': return 'money()';
    case 'date': return 'date()';
    case 'boolean': return 'boolean()';
  }
}

/** The superstruct struct that checks the field in create and update bodies: an optional one takes null too. */
export function structOf(field: FieldSpec): string {
  return field.required ? valueStructOf(field) : `maybe(${valueStructOf(field)})`;
}

/** The field's struct in answers, which carry no nulls: an optional field is absent. */
export function resultStructOf(field: FieldSpec): string {
  return field.required ? valueStructOf(field) : `optional(${valueStructOf(field)})`;
}

/** The criteria field a filterable field offers. */
export function criterionOf(field: FieldSpec): string {
  switch (field.type) {
    case 'text': return 'criterion.text()';
    case 'integer': return 'criterion.integerRange()';
    case 'decimal': return 'criterion.numberRange()';
    case 'money': return 'criterion.moneyRange()';
    case 'date': return 'criterion.dateRange()';
    case 'boolean': return 'criterion.flag()';
    case 'lookup': return 'criterion.list()';
  }
}

/** The Kysely column type; the names are the constants migrations.ts declares per provider. */
export function columnType(field: FieldSpec): string {
  switch (field.type) {
    case 'text': return field.max ? `'varchar(${field.max})'` : "'text'";
    case 'integer': case 'lookup': return "'integer'";
    case 'decimal': return 'numberType';
    case 'money': return 'moneyType';
    case 'date': return 'dateType';
    case 'boolean': return 'boolType';
  }
}

/**
 * A money column as the providers keep it (restlayer's DbMoney: SQLite an integer of ten-thousandths, PostgreSQL
 * `numeric` as text); `storage.values.toMoney` reads either back as a number, `storage.values.money` writes one.
 */
export const MONEY_COLUMN = 'DbMoney';

/** The column's type in the Kysely table interface. */
export function tableType(field: FieldSpec): string {
  const type = field.type === 'date' ? 'DbDate' : field.type === 'boolean' ? 'DbBool' : field.type === 'money' ? MONEY_COLUMN : tsType(field);
  return field.required ? type : `${type} | null`;
}

/** `Purchase order` → `purchase order`, for sentences. */
export const lowerHuman = (spec: ServiceSpec) => spec.human.toLowerCase();

/** The error code of a lookup reference that names no active entry: `PurchaseOrder_InvalidTerritoryId`. */
export const lookupCode = (spec: ServiceSpec, field: FieldSpec) => `${spec.pascal}_Invalid${upperFirst(field.name)}`;

export const lookupFields = (spec: ServiceSpec) => spec.fields.filter((f) => f.type === 'lookup');
export const optionalFields = (spec: ServiceSpec) => spec.fields.filter((f) => !f.required);
export const requiredFields = (spec: ServiceSpec) => spec.fields.filter((f) => f.required);
export const filterableFields = (spec: ServiceSpec) => spec.fields.filter((f) => f.filterable);
export const sortableFields = (spec: ServiceSpec) => spec.fields.filter((f) => f.sortable);
export const dateFields = (spec: ServiceSpec) => spec.fields.filter((f) => f.type === 'date');
export const textFields = (spec: ServiceSpec) => spec.fields.filter((f) => f.type === 'text');

/** A quoted list: `'a', 'b'`. */
export const quoted = (names: string[]) => names.map((n) => `'${n}'`).join(', ');
