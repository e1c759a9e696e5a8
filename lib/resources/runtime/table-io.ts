import { type RawBuilder, sql } from 'kysely';
import type { SqlValues } from '../../storage/sql-values.js';
import type { ResourceField } from '../model.js';
import { type Draft, type FieldIo, type Row, fieldIo } from './values.js';

/** The table of a resource or of a child collection, as statements read and write it. */
export interface TableShape {
  readonly table: string;
  readonly keyColumn: string;
  readonly fields: readonly ResourceField[];
}

/**
 * One table's fields as the statements of one store read and write them: the select list of a read (the record's
 * columns and its joined ones, each under a slot of its own so a parent and its children share one row), the joins,
 * and the conversions between rows and records. Built once per resource and store.
 */
export class TableIo {
  readonly fields: readonly FieldIo[];
  readonly stored: readonly FieldIo[];
  /** Where a read row holds the key. */
  readonly keySlot: string;
  /** The select list of a read: the key and every field, each `as` its slot. */
  readonly select: readonly RawBuilder<unknown>[];
  private readonly slots: ReadonlyMap<FieldIo, string>;

  /**
   * `alias`: the table's name in read statements; `prefix`: what its slots start with (a child's, so its columns
   * never meet its parent's in one row).
   */
  constructor(values: SqlValues, readonly shape: TableShape, readonly alias: string, readonly prefix = '') {
    this.fields = shape.fields.map((f) => fieldIo(values, f));
    this.stored = this.fields.filter((io) => io.field.stored);
    this.slots = new Map(this.fields.map((io) => [io, prefix + (io.field.stored ? io.field.column : `${io.field.join!.alias}_${io.field.join!.column}`)]));
    this.keySlot = prefix + shape.keyColumn;
    this.select = [
      sql`${sql.ref(`${alias}.${shape.keyColumn}`)} as ${sql.id(this.keySlot)}`,
      ...this.fields.map((io) => {
        const from = io.field.stored ? `${alias}.${io.field.column}` : `${io.field.join!.alias}.${io.field.join!.column}`;
        return sql`${sql.ref(from)} as ${sql.id(this.slots.get(io)!)}`;
      }),
    ];
  }

  /** The joins of the joined fields (each join once), `inner` for a record read alone, `left` beside a parent's. */
  joins(kind: 'inner' | 'left'): RawBuilder<unknown> {
    const seen = new Set<string>();
    const word = kind === 'inner' ? sql`join` : sql`left join`;
    return sql.join(this.fields.flatMap(({ field: { join } }) => {
      if (!join || seen.has(join.alias)) return [];
      seen.add(join.alias);
      return [sql`${word} ${sql.table(join.table)} as ${sql.id(join.alias)} on ${sql.ref(`${join.alias}.${join.key}`)} = ${sql.ref(`${this.alias}.${join.on}`)}`];
    }), sql` `);
  }

  /** A read row's record: every field with a value (absent ones left out: the wire carries no nulls). */
  fromSlots(row: Row, into: Draft = {}): Draft {
    for (const io of this.fields) {
      const value = io.read(row[this.slots.get(io)!]);
      if (value !== undefined) into[io.field.name] = value;
    }
    return into;
  }

  /** A `select *` row's stored fields (joined ones are not in it). */
  fromColumns(row: Row): Draft {
    const record: Draft = {};
    for (const io of this.stored) {
      const value = io.read(row[io.field.column]);
      if (value !== undefined) record[io.field.name] = value;
    }
    return record;
  }

  /** A record's stored columns, as the store keeps them; `prefix` starts the property of an amount out of range. */
  toColumns(record: Draft, prefix = '', skip?: (field: ResourceField) => boolean): Record<string, unknown> {
    const columns: Record<string, unknown> = {};
    for (const io of this.stored) {
      if (skip?.(io.field)) continue;
      columns[io.field.column] = io.write(record[io.field.name], prefix + io.field.name);
    }
    return columns;
  }
}
