import Big from 'big.js';

/**
 * A JSON number whose text says more than the double JSON.parse made of it: `1.00000000000000000001` parses as 1,
 * `1e-400` as 0. Node 20's JSON.parse shows a reviver no source text, so the body's text is read again with
 * jsonc-parser's visitor, which gives each number's offset in it (lib/validation/repeated-keys.ts), and such numbers
 * are noted here per object and key. `model()` then hands a field that checks digits (money: its fractional digits,
 * integer: a whole number) this instead of the rounded number, so the check is of what the client sent; every
 * other field gets the number as JSON.parse made it.
 */
export class SentNumber {
  /** The number as written, exactly (big.js). */
  readonly decimal: Big;

  constructor(readonly text: string, readonly value: number) {
    this.decimal = new Big(text);
  }

  /** Its fractional digits as sent, trailing zeros aside (1.50000 has 1, 1e-400 has 400). */
  get fractionDigits(): number {
    return Math.max(0, this.decimal.c.length - this.decimal.e - 1);
  }
}

/** Whether JSON.parse kept the number `text` exactly as `value`: the number's shortest form is the same decimal. */
export function parsedExactly(text: string, value: number): boolean {
  if (text === String(value)) return true;
  // 1e400 is Infinity, which the fields refuse as it is.
  if (!Number.isFinite(value)) return true;
  return new Big(text).eq(value);
}

const sentNumbers = new WeakMap<object, ReadonlyMap<string, SentNumber>>();

/** The numbers of `value` (an object JSON.parse made) that it did not keep exactly, by key as written. */
export function sentNumbersOf(value: object): ReadonlyMap<string, SentNumber> | undefined {
  return sentNumbers.get(value);
}

/** Notes the numbers of `target`'s keys that JSON.parse did not keep exactly (see noteJsonText). */
export function noteSentNumbers(target: object, numbers: ReadonlyMap<string, SentNumber>): void {
  sentNumbers.set(target, numbers);
}
