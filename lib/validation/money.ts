import Big from 'big.js';
import { Struct, coerce, unknown } from 'superstruct';
import { CODES, inputFailure } from '../envelope/message-catalogue.js';
import { MONEY_PRECISION, MONEY_SCALE, fractionDigits } from './decimal.js';
import { numberText } from './fields.js';
import { SentNumber } from './sent-numbers.js';

export interface MoneyOptions {
  min?: number;
  max?: number;
  /** Digits after the decimal point, 0 to 4 (what every store keeps); default 4. */
  scale?: number;
  /** Digits in all, at most 15 (what a double holds exactly); default 15. */
  precision?: number;
}

/** What a money field checks: kept on its struct (`struct.schema`), where the OpenAPI document reads it. */
export interface MoneyRules {
  readonly min: number;
  readonly max: number;
  readonly scale: number;
  readonly precision: number;
}

/**
 * The digits before the decimal point a money column holds (PostgreSQL's `numeric(15,4)`: 15 − 4), whatever a
 * field's own precision: every amount a field accepts must fit the column.
 */
export const STORED_WHOLE_DIGITS = MONEY_PRECISION - MONEY_SCALE;

/** The bound every stored amount stays below (10^11): what Amount_TooLarge names. */
export const MONEY_LIMIT = new Big(10).pow(STORED_WHOLE_DIGITS);

/**
 * Whether a computed amount (rounded to the scale) fits the money columns: a service checks its totals with it to
 * report Amount_TooLarge on the property concerned before it writes, as `values.money` does when it stores.
 */
export const fitsMoney = (amount: Big): boolean => amount.abs().lt(MONEY_LIMIT);

/** The rules of `money(options)`; a scale or precision no store can keep is a mistake of the model, thrown at once. */
export function moneyRules(options: MoneyOptions = {}): MoneyRules {
  const { scale = MONEY_SCALE, precision = MONEY_PRECISION } = options;
  if (!Number.isInteger(scale) || scale < 0 || scale > MONEY_SCALE) throw new RangeError(`money(): scale must be a whole number from 0 to ${MONEY_SCALE}, not ${scale}.`);
  if (!Number.isInteger(precision) || precision < Math.max(scale, 1) || precision > MONEY_PRECISION) {
    throw new RangeError(`money(): precision must be a whole number from ${Math.max(scale, 1)} to ${MONEY_PRECISION}, not ${precision}.`);
  }
  // The largest amount with that many digits: 99999999999.9999 for 15 and 4.
  const whole = Math.min(precision - scale, STORED_WHOLE_DIGITS);
  const limit = new Big(10).pow(whole).minus(new Big(10).pow(-scale)).toNumber();
  const min = Math.max(options.min ?? -limit, -limit);
  const max = Math.min(options.max ?? limit, limit);
  if (!(min <= max)) throw new RangeError(`money(): min (${options.min}) must not exceed max (${options.max}).`);
  return { min, max, scale, precision };
}

function check(value: unknown, rules: MoneyRules): true | { code: string; message: string } {
  if (value === undefined) return inputFailure(CODES.Input_Required);
  // A number JSON.parse rounded, as sent: with more fractional digits than the scale, or, with no more (an amount of
  // at most 15 digits is kept exactly), more digits in all than any amount in range has.
  if (value instanceof SentNumber) {
    return value.fractionDigits > rules.scale ? inputFailure(CODES.Input_TooManyDecimals, { scale: rules.scale }) : inputFailure(CODES.Input_OutOfRange, { min: rules.min, max: rules.max });
  }
  if (typeof value !== 'number') return inputFailure(CODES.Input_InvalidType, { expected: typeof value === 'string' ? 'a number (a JSON number, not text)' : 'a number' });
  if (!Number.isFinite(value)) return inputFailure(CODES.Input_InvalidType, { expected: 'a finite number' });
  if (fractionDigits(value) > rules.scale) return inputFailure(CODES.Input_TooManyDecimals, { scale: rules.scale });
  if (value < rules.min || value > rules.max) return inputFailure(CODES.Input_OutOfRange, { min: rules.min, max: rules.max });
  return true;
}

/**
 * An exact amount (contract part 3, "Amounts"): a JSON number with at most `scale` digits after the decimal point
 * (counted as sent, trailing zeros aside: 1e-7 has 7, 1.50000 has 1, and 1.00000000000000000001, which JSON.parse
 * reads as 1, has 20 — see sent-numbers.ts), at most `precision` digits in all, finite,
 * within min..max. Every such number is exact as a double, so the service gets a plain `number`; it computes with
 * `Decimal` and stores with `storage.values.money` (docs/money.md). Text is refused in bodies: "12.30" is not an
 * amount a JSON client sends.
 */
export function money(options: MoneyOptions = {}): Struct<number, MoneyRules> {
  const rules = moneyRules(options);
  return new Struct<number, MoneyRules>({ type: 'money', schema: rules, validator: (value) => check(value, rules) });
}

/** `money` where every value comes as text (query strings: list criteria), which it reads as a number first. */
export function moneyFromText(options: MoneyOptions = {}): Struct<number, MoneyRules> {
  return coerce(money(options), unknown(), (v) => (typeof v === 'string' && numberText.test(v) ? Number(v) : v));
}
