import { type ErrorMessage, isError, toWire } from './error-message.js';

export interface Envelope {
  result?: unknown;
  messages: ReturnType<typeof toWire>[];
  totalCount?: number;
}

/** The one response body of the API: `result` is dropped when null or when any message is an error. */
export function envelope(messages: readonly ErrorMessage[], result?: unknown, totalCount?: number): Envelope {
  const wire = messages.map(toWire);
  const body: Envelope = result != null && !messages.some(isError) ? { result, messages: wire } : { messages: wire };
  if (totalCount != null) body.totalCount = totalCount;
  return body;
}
