import { Struct, coerce, define, object, optional, array, nullable, unknown } from 'superstruct';
import { MAX_MESSAGES } from '../envelope/error-list.js';
import { CODES, inputFailure } from '../envelope/message-catalogue.js';
import { repeatedKeysOf } from './repeated-keys.js';
import { sentNumbersOf } from './sent-numbers.js';

/** superstruct's own schema type (a record of structs of any type). */
type ObjectSchema = Parameters<typeof object>[0] & {};

/**
 * Leaf types for route inputs. Query strings and route parameters are text, so every leaf also accepts its
 * text form; each failure carries a stable `code` and a message that reads after the property name.
 */
export interface InputFailure {
  code: string;
  message: string;
}

const required = inputFailure(CODES.Input_Required);

function leaf<T>(name: string, check: (value: unknown) => true | InputFailure): Struct<T, null> {
  return define<T>(name, (value) => (value === undefined ? required : check(value)));
}

const integerText = /^[+-]?\d{1,16}$/;

/** The range of SQL's `integer` (32 bits): ids and other whole numbers that are stored in such a column. */
export const INT32 = { min: -2_147_483_648, max: 2_147_483_647 } as const;
/** Numeric text as query strings carry numbers (`12`, `-0.5`, `.5`, `1e-3`). */
export const numberText = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function integer(options: { min?: number; max?: number } = {}): Struct<number, null> {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = options;
  const base = leaf<number>('integer', (v) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return inputFailure(CODES.Input_InvalidType, { expected: 'an integer' });
    if (v < min || v > max) return inputFailure(CODES.Input_OutOfRange, { min, max });
    return true;
  });
  return coerce(base, unknown(), (v) => (typeof v === 'string' && integerText.test(v) ? Number(v) : v));
}

export function decimal(): Struct<number, null> {
  const base = leaf<number>('decimal', (v) =>
    typeof v === 'number' && Number.isFinite(v) ? true : inputFailure(CODES.Input_InvalidType, { expected: 'a number' }));
  return coerce(base, unknown(), (v) => (typeof v === 'string' && numberText.test(v) ? Number(v) : v));
}

export function boolean(): Struct<boolean, null> {
  const base = leaf<boolean>('boolean', (v) =>
    typeof v === 'boolean' ? true : inputFailure(CODES.Input_InvalidType, { expected: 'true or false' }));
  return coerce(base, unknown(), (v) => {
    if (typeof v !== 'string') return v;
    const lower = v.toLowerCase();
    return lower === 'true' ? true : lower === 'false' ? false : v;
  });
}

/** The ISO 8601 forms date() reads (the OpenAPI document declares input dates with this pattern). */
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** JavaScript rolls 2024-02-30 over to March 1st; a day the month does not have is not a date. */
function isCalendarDay(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number);
  const day = new Date(0);
  day.setUTCFullYear(y, m - 1, d);
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/**
 * The instants a date may name: what four-digit years can write in UTC. An offset can push a date written inside
 * them out (9999-12-31T23:00:00-02:00 is in year 10000), and such a date would be stored as `+010000-...`, which
 * compares and sorts as text before every other date.
 */
export const DATE_RANGE = { min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') } as const;

/** ISO 8601 dates; a date without a time is midnight UTC, a time without an offset is UTC. */
export function date(): Struct<Date, null> {
  const base = leaf<Date>('date', (v) => {
    if (!(v instanceof Date) || Number.isNaN(v.getTime())) return inputFailure(CODES.Input_InvalidType, { expected: 'an ISO 8601 date, e.g. 2024-05-31 or 2024-05-31T14:30:00Z' });
    if (v.getTime() < DATE_RANGE.min || v.getTime() > DATE_RANGE.max) {
      return inputFailure(CODES.Input_OutOfRange, { min: '0001-01-01T00:00:00Z', max: '9999-12-31T23:59:59.999Z', after: ' once its offset is applied' });
    }
    return true;
  });
  return coerce(base, unknown(), (v) => {
    if (typeof v !== 'string' || !ISO_DATE.test(v) || !isCalendarDay(v)) return v;
    const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/.test(v) && v.includes('T');
    return new Date(v.includes('T') && !hasOffset ? v + 'Z' : v);
  });
}

const LAST_CODE_POINT = '\u{10FFFF}';

/** `String.prototype.isWellFormed` (Node 20 has it; TypeScript declares it only from its ES2024 library on). */
const isWellFormed = (v: string): boolean => (v as string & { isWellFormed(): boolean }).isWellFormed();

export function text(options: { max?: number; min?: number } = {}): Struct<string, null> {
  const { max, min = 0 } = options;
  return leaf<string>('text', (v) => {
    if (typeof v !== 'string') return inputFailure(CODES.Input_InvalidType, { expected: 'a string' });
    // Text databases (PostgreSQL) cannot store U+0000, and no one types it: it is refused here, not by the store.
    if (v.includes('\u0000')) return inputFailure(CODES.Input_InvalidValue, { rule: 'not contain the NUL character (U+0000)' });
    // A lone surrogate (JSON's "\ud800") is not a character: UTF-8 cannot encode it, so a store would keep U+FFFD.
    if (!isWellFormed(v)) return inputFailure(CODES.Input_InvalidValue, { rule: 'be well-formed Unicode: it holds a lone surrogate (half of a UTF-16 pair, U+D800 to U+DFFF)' });
    // The last code point, a noncharacter no one types: starts-with filters bound their index range with it
    // (lib/storage/criteria-sql.ts), so text holding it right after a prefix could never be found by that prefix.
    if (v.includes(LAST_CODE_POINT)) return inputFailure(CODES.Input_InvalidValue, { rule: 'not contain the noncharacter U+10FFFF' });
    if (max !== undefined && v.length > max) return inputFailure(CODES.Input_TooLong, { max });
    if (v.length < min) return min === 1 ? required : inputFailure(CODES.Input_TooShort, { min });
    return true;
  });
}

export function oneOf<T extends string>(values: readonly T[]): Struct<T, null> {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v]));
  const base = leaf<T>('oneOf', (v) =>
    typeof v === 'string' && values.includes(v as T) ? true : inputFailure(CODES.Input_InvalidValue, { rule: `be one of ${values.join(', ')}` }));
  return coerce(base, unknown(), (v) => (typeof v === 'string' ? byLower.get(v.toLowerCase()) ?? v : v));
}

/** Null or absent: both mean "no value". */
export function maybe<T>(struct: Struct<T, unknown>): Struct<T | null | undefined, unknown> {
  return optional(nullable(struct));
}

export { optional, array };

/** What an unknown property's value, or a body that is not an object, is checked as (see `model`). */
const rejected = Symbol.for('restlayer.rejected');

/**
 * The fields whose check reads a number's digits (money: its fractional digits; integer: a whole number): given a
 * number JSON.parse rounded, they get it as sent (a SentNumber) and judge that, so `1.00000000000000000001` is not 1.
 */
const checksDigits = new Set(['money', 'integer']);

/** Names that mean something to JavaScript objects: never a property of an input, refused by name. */
const reservedNames = new Set(['__proto__', 'constructor', 'prototype']);

/** A problem with a key itself (not its value), reported on the property it names. */
interface KeyProblem extends InputFailure {
  key: string;
}

/** The key problems `model` found in the objects it produced (they are its own fresh objects, so nothing leaks). */
const keyProblems = new WeakMap<object, KeyProblem[]>();

/**
 * A property named twice: the failure settles it, so validateInput drops any other message about the property or
 * what it holds (the value checked there is only one of the two the client sent).
 */
const ambiguous = (key: string): KeyProblem => ({
  key, ...inputFailure(CODES.Input_Duplicate, { caseInsensitive: true }),
});
const reserved = (key: string): KeyProblem => ({ key, ...inputFailure(CODES.Input_ReservedName) });

/**
 * An `object()` struct that also reports the key problems `model`'s coercion recorded, before anything found inside.
 * Its own coercion (a shallow copy) is left out: the problems are found by the identity of the object `model` made,
 * which is a fresh copy already.
 */
function withKeyProblems<T, S>(struct: Struct<T, S>): Struct<T, S> {
  return new Struct<T, S>({
    ...struct,
    coercer: (value) => value,
    *validator(value, context) {
      yield* struct.validator(value, context);
      const problems = typeof value === 'object' && value !== null ? keyProblems.get(value) : undefined;
      for (const { key, code, message } of problems ?? []) {
        yield { path: [...context.path, key], code, message, settles: code === CODES.Input_Duplicate };
      }
    },
  });
}

/**
 * A JSON object whose property names match case-insensitively and whose unknown properties are rejected.
 * Keys are renamed to the schema's spelling before validation, at every level that is a `model`. A money or integer
 * field whose number JSON.parse rounded is checked as the client wrote it (sent-numbers.ts). Two keys naming
 * one property (`status` and `STATUS`, or `status` twice in the JSON text) and the names `__proto__`,
 * `constructor` and `prototype` are refused on that property.
 *
 * Values that can only fail (an unknown property's, a body that is an array) are replaced by a stand-in before
 * superstruct sees them: it prints every value it rejects into a text with `${value}`, which overflows the stack
 * on a deeply nested array and throws on an object with a `toString` property of its own. Their messages never
 * show the value anyway.
 */
export function model<S extends ObjectSchema>(schema: S) {
  const names = new Map(Object.keys(schema).map((k) => [k.toLowerCase(), k]));
  return coerce(withKeyProblems(object(schema)), unknown(), (value) => {
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return rejected;
    // Keys the JSON text repeated exactly (JSON.parse kept one); spellings that differ in case are both still here.
    const repeated = repeatedKeysOf(value);
    // Numbers the JSON text gave with more digits than JSON.parse kept.
    const sent = sentNumbersOf(value);
    const problems: KeyProblem[] = [];
    const known = new Map<string, unknown>();
    const twice = new Set<string>();
    const entries: [string, unknown][] = [];
    for (const [key, v] of Object.entries(value)) {
      const lower = key.toLowerCase();
      const name = names.get(lower);
      if (reservedNames.has(lower)) problems.push(reserved(key));
      // Each unknown property is one message: past one more than an answer lists, the rest would change nothing in
      // it but the work (a body of 90,000 of them copied, walked and described for a hundred messages).
      else if (!name) {
        if (entries.length <= MAX_MESSAGES) entries.push([key, rejected]);
      }
      else {
        if (known.has(name) || repeated?.has(lower)) twice.add(name);
        const written = sent?.get(key);
        known.set(name, written && checksDigits.has(schema[name].type) ? written : v);
      }
    }
    for (const name of twice) problems.push(ambiguous(name));
    // fromEntries defines own properties: no key can reach a prototype.
    const renamed = Object.fromEntries([...known, ...entries]);
    if (problems.length) keyProblems.set(renamed, problems);
    return renamed;
  });
}
