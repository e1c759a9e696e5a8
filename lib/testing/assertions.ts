import assert from 'node:assert/strict';
import type { Envelope, TestReply } from './test-server.js';

export type Message = Envelope['messages'][number];
export type QueryValue = string | number | boolean;

/** A query string from pairs (repeat a key by giving an array); values are percent-encoded. */
export function qs(params: Record<string, QueryValue | QueryValue[]> | [string, QueryValue][]): string {
  const pairs = Array.isArray(params)
    ? params
    : Object.entries(params).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as [string, QueryValue]) : [[k, v] as [string, QueryValue]]));
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');
}

/** Asserts a plain success: status (200 by default) and no messages; answers the envelope. */
export function expectOk<R = any>(reply: TestReply<R>, status = 200): Envelope<R> {
  assert.equal(reply.status, status, reply.text);
  assert.deepEqual(reply.body.messages, [], reply.text);
  return reply.body;
}

/** Asserts an error answer: the status, no result, and exactly the given codes (in any order). */
export function expectErrors(reply: TestReply, status: number, codes: string[]): Message[] {
  assert.equal(reply.status, status, reply.text);
  assert.ok(!('result' in reply.body), `an error answer has no result: ${reply.text}`);
  assert.deepEqual(reply.body.messages.map((m) => m.code).sort(), [...codes].sort(), reply.text);
  return reply.body.messages;
}

/** Asserts the answer holds exactly one message, an Error with the given status and code (and property when given). */
export function expectError(reply: TestReply, status: number, code: string, property?: string): Message {
  const [m] = expectErrors(reply, status, [code]);
  assert.equal(m.severity, 'Error', reply.text);
  assert.equal(m.property, property, reply.text);
  return m;
}
