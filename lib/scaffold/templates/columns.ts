import type { FieldSpec } from '../spec.js';

/** The stored form of one field of `data`, as `columnsOf` writes it. */
export function toColumn(field: FieldSpec): string {
  const value = `data.${field.name}`;
  switch (field.type) {
    case 'date': return field.required ? `v.date(${value})` : `${value} ? v.date(${value}) : null`;
    case 'boolean': return field.required ? `v.bool(${value})` : `${value} == null ? null : v.bool(${value})`;
    case 'money': return field.required ? `v.money(${value})` : `${value} == null ? null : v.money(${value})`;
    default: return field.required ? value : `${value} ?? null`;
  }
}

/** The wire form of one column of row `r`, as `listItem` reads it: absent, never null, when there is no value. */
export function fromColumn(field: FieldSpec): string {
  const value = `r.${field.column}`;
  switch (field.type) {
    case 'date': return field.required ? `v.toDate(${value})` : `${value} == null ? undefined : v.toDate(${value})`;
    case 'boolean': return field.required ? `v.toBool(${value})` : `${value} == null ? undefined : v.toBool(${value})`;
    case 'money': return field.required ? `v.toMoney(${value})` : `${value} == null ? undefined : v.toMoney(${value})`;
    default: return field.required ? value : `${value} ?? undefined`;
  }
}
