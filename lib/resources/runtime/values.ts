import type { SqlValues } from '../../storage/sql-values.js';
import type { WireValue } from '../field.js';
import type { ResourceField } from '../model.js';

/** A record being built by a write: field name → wire value (no value: undefined). */
export type Draft = { [field: string]: WireValue | undefined };

/** A row as the store answers it: column (or select alias) → stored value. */
export type Row = Readonly<Record<string, unknown>>;

/**
 * Whether two values (stored or wire) are certainly the same: then the column is left out of an UPDATE (nor is an
 * index on it rewritten). Anything uncertain counts as changed and is written.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
}

/** One field's conversions, worked out once per store, both ways. */
export interface FieldIo {
  readonly field: ResourceField;
  /** The wire value of a stored one; undefined for no value (the wire carries no nulls). */
  read(stored: unknown): WireValue | undefined;
  /** The stored value of a wire one (null for no value). `property` names the input an amount out of range is reported on. */
  write(value: WireValue | null | undefined, property?: string): unknown;
}

/**
 * The conversions of one field for one store: dates, booleans and money as the store keeps them (lib/storage/sql-values.ts),
 * everything else as it is. Built once per resource and store, so a read converts with no decisions left to make.
 */
export function fieldIo(values: SqlValues, field: ResourceField): FieldIo {
  const plain = { field, write: (v: WireValue | null | undefined) => v ?? null };
  switch (field.value.type) {
    case 'date':
      return {
        ...plain,
        read: (raw) => (raw == null ? undefined : values.toDate(raw as string | Date)),
        write: (v) => (v == null ? null : values.date(v as Date)),
      };
    case 'boolean':
      return {
        ...plain,
        read: (raw) => (raw == null ? undefined : values.toBool(raw as number | boolean)),
        write: (v) => (v == null ? null : values.bool(v as boolean)),
      };
    case 'money':
      return {
        ...plain,
        read: (raw) => (raw == null ? undefined : values.toMoney(raw as number | string)),
        write: (v, property) => (v == null ? null : values.money(v as number, property)),
      };
    case 'decimal':
      return { ...plain, read: (raw) => (raw == null ? undefined : Number(raw)) };
    default:
      return { ...plain, read: (raw) => (raw == null ? undefined : raw as WireValue) };
  }
}
