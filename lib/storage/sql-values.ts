import type { RawBuilder, SqlBool } from 'kysely';
import { withinBudget } from './sqlite-read-budget.js';

/** Value conversions between JavaScript and one SQL provider (part of its dialect, lib/storage/dialects/). */
export interface SqlValues {
  /** Terms a reader query adds to its WHERE so that it may run on the main thread under a time budget (SQLite). */
  readonly readBudget: readonly RawBuilder<SqlBool>[];
  date(d: Date): string | Date;
  bool(b: boolean): number | boolean;
  toDate(v: string | Date): Date;
  toBool(v: number | boolean): boolean;
}

const canonicalIso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A date read from text in `toISOString()`'s shape (every write goes through `date()`) serialises back to that text.
 * JSON.stringify calls Date#toJSON for every date, and toISOString costs ~0.6 µs: two thirds of a 50-row page's
 * serialisation. Changed after reading (setTime and friends), it serialises as any Date.
 */
export class StoredDate extends Date {
  readonly #text: string;
  readonly #time: number;

  constructor(text: string) {
    super(text);
    this.#text = text;
    this.#time = this.getTime();
  }

  override toJSON(): string {
    return this.getTime() === this.#time ? this.#text : super.toJSON();
  }
}

export const sqliteValues: SqlValues = {
  readBudget: [withinBudget],
  // Fixed-width ISO text sorts and compares like the instant it names.
  date: (d) => d.toISOString(),
  bool: (b) => (b ? 1 : 0),
  toDate: (v) => (v instanceof Date ? v : canonicalIso.test(v) ? new StoredDate(v) : new Date(v)),
  toBool: (v) => v === true || v === 1,
};

export const postgresValues: SqlValues = {
  readBudget: [],
  date: (d) => d,
  bool: (b) => b,
  toDate: (v) => (v instanceof Date ? v : new Date(v)),
  toBool: (v) => v === true || v === 1,
};
