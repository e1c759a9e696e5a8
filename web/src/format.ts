/** How values are shown: dates as the calendar day in UTC (the sample orders are dated at midnight UTC). */

/** `2025-03-01` of a Date (UTC), or '' for none. */
export function isoDay(date: Date | null | undefined): string {
  return date ? date.toISOString().slice(0, 10) : '';
}

const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const stamp = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
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
