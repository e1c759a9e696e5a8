import Big from 'big.js';
import type { RawBuilder, SqlBool } from 'kysely';
import { ServiceError } from '../envelope/error-list.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { MONEY_SCALE } from '../validation/decimal.js';
import { MONEY_LIMIT, fitsMoney } from '../validation/money.js';
import { withinBudget } from './sqlite-read-budget.js';

/** Value conversions between JavaScript and one SQL provider (part of its dialect, lib/storage/dialects/). */
export interface SqlValues {
  /** Terms a reader query adds to its WHERE so that it may run on the main thread under a time budget (SQLite). */
  readonly readBudget: readonly RawBuilder<SqlBool>[];
  date(d: Date): string | Date;
  bool(b: boolean): number | boolean;
  toDate(v: string | Date): Date;
  toBool(v: number | boolean): boolean;
  /**
   * An amount as a money column (`dialect.types.money`) keeps it, rounded half away from zero to 4 fractional digits:
   * SQLite's integer ten-thousandths, PostgreSQL's numeric text. A Decimal is taken exactly, a number at its shortest
   * decimal form. An amount of 10^11 or more (numeric(15,4) holds 11 whole digits) throws, on both stores alike, a
   * ServiceError of Amount_TooLarge (400) on `property` when given: only a computed amount can be that large (money()
   * refuses such inputs), and the answer says so instead of the store's overflow (a 500).
   */
  money(amount: number | Big, property?: string): number | string;
  /** A stored amount, or a SUM of them, as a number (exact: the double nearest the decimal); null (a SUM of no rows) is 0. */
  toMoney(raw: number | string | bigint | null | undefined): number;
}

/** An amount's ten-thousandths, rounded half away from zero: what SQLite stores. */
const UNITS = new Big(10).pow(MONEY_SCALE);

function roundedAmount(amount: number | Big, property?: string): Big {
  const rounded = new Big(amount).round(MONEY_SCALE, Big.roundHalfUp);
  if (!fitsMoney(rounded)) {
    throw new ServiceError([MESSAGES.Amount_TooLarge({ amount: rounded.toFixed(), limit: MONEY_LIMIT.toFixed(), ...(property ? { property } : {}) })]);
  }
  return rounded;
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
  // Integers are exact, compare and sort as the amounts do, and SUM exactly; `+ 0` makes -0 a plain 0.
  money: (amount, property) => roundedAmount(amount, property).times(UNITS).toNumber() + 0,
  // A division of integers below 2^53 by 10^4 is rounded once: to the double nearest the decimal, as Number('0.6') is.
  toMoney: (raw) => (raw == null ? 0 : Number(raw) / 10_000),
};

export const postgresValues: SqlValues = {
  readBudget: [],
  date: (d) => d,
  bool: (b) => b,
  toDate: (v) => (v instanceof Date ? v : new Date(v)),
  toBool: (v) => v === true || v === 1,
  // Fixed-point text: the driver sends it as it is, so no binary rounding comes between the Decimal and numeric.
  money: (amount, property) => roundedAmount(amount, property).toFixed(MONEY_SCALE),
  // The driver reads numeric as text ('0.6000'): Number() gives the double nearest it.
  toMoney: (raw) => (raw == null ? 0 : Number(raw)),
};
