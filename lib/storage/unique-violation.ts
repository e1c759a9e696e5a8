import { isPgServerError } from './pg-driver.js';

/**
 * A unique key of a service's table, declared by its module (ServiceModule.uniqueKeys) when the store's own report
 * does not name the column the API calls it by: an index on an expression (`lower(account_number)`), several
 * columns, or a column whose property is not its camelCase name.
 */
export interface UniqueKey {
  /** The unique index's or constraint's name, as the module's migration creates it. */
  index: string;
  /** The API property a duplicate is reported on. */
  property: string;
}

/** What a store says when a write broke a unique key: the index (when named) and the columns (when plain). */
export interface UniqueViolation {
  index?: string;
  columns: string[];
}

/** SQLite names the columns as `table.column` (a plain unique column or primary key) or the index by name (an expression). */
const sqliteReport = /constraint failed: (?:index '([^']+)'|(.+))$/;
/** PostgreSQL's detail: `Key (account_number)=(AW1) already exists.` or, for an expression, `Key (lower(account_number::text))=...`. */
const postgresKey = /^Key \((.+?)\)=\(/;
const identifier = /[a-z_][a-z0-9_]*/gi;
const sqlWords = new Set(['lower', 'upper', 'text', 'varchar', 'character', 'varying', 'coalesce']);

/** The violation, when `err` is a unique-key violation (by its code: PostgreSQL 23505, SQLite's CONSTRAINT_UNIQUE and PRIMARYKEY). */
export function uniqueViolation(err: unknown): UniqueViolation | undefined {
  if (isPgServerError(err)) {
    if (err.code !== '23505') return undefined;
    const key = postgresKey.exec(err.detail ?? '')?.[1] ?? '';
    return { index: err.constraint, columns: (key.match(identifier) ?? []).filter((w) => !sqlWords.has(w.toLowerCase())) };
  }
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return undefined;
  const report = sqliteReport.exec((err as Error).message);
  if (report?.[1]) return { index: report[1], columns: [] };
  return { columns: (report?.[2] ?? '').split(',').map((c) => c.trim().split('.').pop() ?? '').filter(Boolean) };
}

/** snake_case column to the API's camelCase property, the layer's naming rule (account_number → accountNumber). */
export const propertyOfColumn = (column: string) => column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The property a violation is reported on: the declared key's, else the first column's camelCase name. */
export function duplicateProperty(violation: UniqueViolation, keys: readonly UniqueKey[]): string | undefined {
  const declared = violation.index ? keys.find((k) => k.index === violation.index) : undefined;
  if (declared) return declared.property;
  return violation.columns[0] ? propertyOfColumn(violation.columns[0]) : undefined;
}

/** Whether `err` is a foreign key's refusal (PostgreSQL 23503, SQLite's CONSTRAINT_FOREIGNKEY): a row refers to one that is not there. */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}
