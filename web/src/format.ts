/** How values are shown: dates as the calendar day in UTC (the sample orders are dated at midnight UTC). */

/** `2025-03-01` of a Date (UTC), or '' for none. */
export function isoDay(date: Date | null | undefined): string {
  return date ? date.toISOString().slice(0, 10) : '';
}

const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const stamp = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
/** Amounts are exact decimals with up to 4 fractional digits (CONTRACT part 3): shown with 2 to 4, never rounded. */
const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });
const count = new Intl.NumberFormat('en-US');

export const showDay = (date: Date | null | undefined) => (date ? day.format(date) : '—');
export const showStamp = (date: Date | null | undefined) => (date ? `${stamp.format(date)} UTC` : '—');
export const showMoney = (value: number) => money.format(value);
export const showCount = (value: number) => count.format(value);

/** A `yyyy-mm-dd` value of a date input as midnight UTC (or the end of that day); undefined when empty or invalid. */
export function dayStart(value: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const date = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export function dayEnd(value: string): Date | undefined {
  const start = dayStart(value);
  return start && new Date(start.getTime() + 86_400_000 - 1);
}

/**
 * A discount fraction (0.125) as the percent a person types (`12.5`); '' for none. Done on the text of its 4
 * fractional digits, not by arithmetic: 0.1234 * 100 is 12.340000000000002 in binary floating point.
 */
export function percentText(fraction: number | null | undefined): string {
  if (!fraction) return '';
  const digits = fraction.toFixed(4).split('.')[1];
  return `${Number(digits.slice(0, 2))}.${digits.slice(2)}`.replace(/\.?0+$/, '');
}

/** A typed percent (`12.5`, `0`, '') as the fraction the API takes (0.125); undefined when it is not 0 to 99.99. */
export function percentFraction(text: string): number | undefined {
  const typed = text.trim().replace(/\s*%$/, '');
  if (typed === '') return 0;
  const match = /^(\d{1,2})(?:\.(\d{1,2}))?$/.exec(typed);
  if (!match) return undefined;
  return Number(`0.${match[1].padStart(2, '0')}${(match[2] ?? '').padEnd(2, '0')}`);
}

/** A typed amount (`12`, `12.5`, `1,234.5678`) as a number with at most 4 fractional digits; undefined otherwise. */
export function moneyValue(text: string): number | undefined {
  const typed = text.trim().replace(/^\$/, '').replace(/,/g, '');
  return /^\d{1,11}(?:\.\d{1,4})?$/.test(typed) ? Number(typed) : undefined;
}

/** An amount as a person types it back into a field (`1234.5`): no currency sign or grouping, as served. */
export const moneyText = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));
