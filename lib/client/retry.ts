import type { HttpReply } from './http.js';

/** How a call that is safe to repeat (it carries an Idempotency-Key) is repeated after a fault. */
export interface RetryOptions {
  /** Repeats after the first attempt (default 3); 0 turns retrying off. */
  retries?: number;
  /** The first pause when the server names none (Retry-After); it doubles each time (default 200 ms). */
  baseDelayMs?: number;
  /** The longest pause, Retry-After included (default 10 s). */
  maxDelayMs?: number;
  /** Waits between attempts (tests count pauses rather than spend them). */
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A fresh Idempotency-Key: a random UUID (Web Crypto, in Node 20 and in browsers alike). */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Whether an answer leaves the outcome open and the call may be repeated: the server could not be reached or cut its
 * answer off (Client_NetworkError), or it answered 503 (unavailable, or a write whose outcome is unknown). With the
 * same key a repeat answers the first outcome if there was one, and writes at most once.
 */
function worthRepeating(reply: HttpReply<unknown>): boolean {
  return reply.status === 503 || reply.status === 0 || reply.output.messages.some((m) => m.code === 'Client_NetworkError');
}

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('Retry-After');
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * Sends, and repeats after a fault (see `worthRepeating`) up to `retries` times, pausing as the server's Retry-After
 * says or else with exponential back-off plus jitter (so many clients do not come back at one instant), capped at
 * `maxDelayMs`. Answers the last reply. Only for calls that are safe to repeat.
 */
export async function withRetries<T>(send: () => Promise<HttpReply<T>>, options: RetryOptions = {}): Promise<HttpReply<T>> {
  const retries = options.retries ?? 3;
  const base = options.baseDelayMs ?? 200;
  const max = options.maxDelayMs ?? 10_000;
  const sleep = options.sleep ?? wait;
  let reply = await send();
  for (let attempt = 0; attempt < retries && worthRepeating(reply); attempt++) {
    const backOff = base * 2 ** attempt * (0.5 + Math.random() / 2);
    await sleep(Math.min(max, retryAfterMs(reply.headers) ?? backOff));
    reply = await send();
  }
  return reply;
}
