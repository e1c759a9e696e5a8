/** A date-time as the server writes it (Date.toJSON) or any ISO 8601 date-time with an explicit offset. */
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Which result properties are dates: `'auto'` turns every string that is an ISO 8601 date-time with an offset into a
 * Date; a list limits that to properties of those names (at any depth), so a text field that happens to hold such a
 * string stays text. Proxies pass their service's date properties; `'none'` leaves strings alone.
 */
export type DateProperties = 'auto' | 'none' | readonly string[];

/** The JSON result with its ISO date-time strings as Date objects, as the service interfaces type them. */
export function reviveDates(value: unknown, dates: DateProperties = 'auto', key?: string): unknown {
  if (dates === 'none') return value;
  if (typeof value === 'string') {
    if (!isoDateTime.test(value) || (dates !== 'auto' && (key === undefined || !dates.includes(key)))) return value;
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? value : date;
  }
  if (Array.isArray(value)) return value.map((item) => reviveDates(item, dates, key));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = reviveDates(v, dates, k);
    return out;
  }
  return value;
}

/** The properties of T typed Date (or Date | null): a proxy's date list is checked against its models with it. */
export type DateKeys<T> = { [K in keyof T]-?: Date extends NonNullable<T[K]> ? (NonNullable<T[K]> extends Date ? K : never) : never }[keyof T] & string;
