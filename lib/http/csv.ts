/**
 * CSV as RFC 4180 writes it (contract part 15): fields separated by commas, records ended by CRLF, a field quoted
 * when it holds a comma, a quote or a line break, its quotes doubled. Values as the JSON answer has them: dates in
 * ISO 8601, money as its exact decimal text (the number JSON writes), booleans `true`/`false`, absent values empty.
 * No byte-order mark: tools that read CSV as UTF-8 (and the header row a program compares) do not expect one.
 */

/**
 * A text that a spreadsheet would run as a formula (OWASP CSV injection: `=`, `+`, `-`, `@`, a tab, a carriage
 * return) is prefixed with `'`. Numbers are not texts: a negative amount stays a number.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: unknown): string {
  if (value == null) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record: the fields of `values` in order, ended by CRLF. */
export function csvRecord(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
