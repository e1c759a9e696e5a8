import { type ErrorMessage, isError, toWire } from './error-message.js';

export interface Envelope {
  result?: unknown;
  messages: ReturnType<typeof toWire>[];
  totalCount?: number;
}

/**
 * The JSON form of a result with null (and undefined) properties left out at every level, as the contract says
 * nulls are not written. Array items keep their places; values with `toJSON` (dates) are serialised first.
 */
export function withoutNulls(value: unknown): unknown {
  if (value === null || value === undefined || typeof value !== 'object') return value;
  const json = typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
  if (json !== value) return withoutNulls(json);
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : withoutNulls(item)));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v != null) out[key] = withoutNulls(v);
  return out;
}

/** The one response body of the API: `result` is dropped when null or when any message is an error. */
export function envelope(messages: readonly ErrorMessage[], result?: unknown, totalCount?: number): Envelope {
  const wire = messages.map(toWire);
  const body: Envelope = result != null && !messages.some(isError) ? { result: withoutNulls(result), messages: wire } : { messages: wire };
  if (totalCount != null) body.totalCount = totalCount;
  return body;
}
