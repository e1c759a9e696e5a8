import Big from 'big.js';

/**
 * Decimal arithmetic for amounts (big.js): JavaScript numbers are binary, so 0.1 + 0.2 is 0.30000000000000004;
 * `new Decimal(0.1).plus(0.2)` is exactly 0.3. A Decimal made from a number starts from the number's shortest
 * decimal form (what JSON.stringify shows), so an amount read from JSON is the amount the client wrote.
 * `Decimal.roundHalfUp` rounds half away from zero (1.00005 → 1.0001, -1.00005 → -1.0001).
 */
export { Big as Decimal };

/** The fractional digits amounts keep unless a field says otherwise (as PostgreSQL's `numeric(15,4)`). */
export const MONEY_SCALE = 4;
/** The digits an amount holds in all: a double holds 15 significant decimal digits exactly, so every amount is exact as a JSON number. */
export const MONEY_PRECISION = 15;

/**
 * `value` rounded half away from zero to `scale` fractional digits, as a number: what a service stores after
 * multiplying (orderQty × unitPrice × (1 − discount)). Numbers are taken at their shortest decimal form.
 */
export function roundMoney(value: number | Big, scale: number = MONEY_SCALE): number {
  return new Big(value).round(scale, Big.roundHalfUp).toNumber();
}

/**
 * The fractional digits of a number's shortest decimal form (`String(v)`, as JSON shows it): 0.1 has 1, 1e-7 has 7,
 * 1.5e-5 has 6, 1e21 has 0. Not meaningful for NaN and infinities.
 */
export function fractionDigits(value: number): number {
  const [mantissa, exponent = '0'] = String(Math.abs(value)).split('e');
  const dot = mantissa.indexOf('.');
  return Math.max(0, (dot < 0 ? 0 : mantissa.length - dot - 1) - Number(exponent));
}
