import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Envelope, Reply, TestServer } from './server.js';

/** The routes folder of test-only probe routes (see probe-routes/probe/[kind].ts), as compiled. */
export const probeRoutesDir = fileURLToPath(new URL('./probe-routes/', import.meta.url));
/** The routes folder of the slow reads through storage.reader (see slow-read-routes/slow-read/[kind].ts), as compiled. */
export const slowReadRoutesDir = fileURLToPath(new URL('./slow-read-routes/', import.meta.url));
/** The routes folder of the fault tests' application (fault-cli.ts): the held write and the sample's sales orders. */
export const faultRoutesDir = fileURLToPath(new URL('./fault-routes/', import.meta.url));

export type Message = Envelope['messages'][number];

/** One list item of `GET /sales-order`, as the wire has it (null fields are absent). */
export interface OrderItem {
  salesOrderId: number;
  salesOrderNumber: string;
  status: number;
  orderDate: string;
  dueDate: string;
  shipDate?: string;
  customerId: number;
  customerName: string;
  territoryId?: number;
  salesPersonId?: number;
  totalDue: number;
  onlineOrderFlag: boolean;
}

// The query-string helper of restlayer/testing, for this project's tests as for a team's.
export { type QueryValue, qs } from 'restlayer/testing';

/** Asserts an error answer: the status, no result, and exactly the given codes (in any order). */
export function expectErrors(reply: Reply, status: number, codes: string[]): Message[] {
  expect(reply.status, reply.text).to.equal(status);
  expect(reply.body, reply.text).to.not.have.property('result');
  expect(reply.body.messages.map((m) => m.code), reply.text).to.have.members(codes);
  expect(reply.body.messages.length, reply.text).to.equal(codes.length);
  return reply.body.messages;
}

/** Asserts the answer holds exactly one message, an Error with the given status and code (and property when given). */
export function expectError(reply: Reply, status: number, code: string, property?: string): Message {
  const [m] = expectErrors(reply, status, [code]);
  expect(m.severity).to.equal('Error');
  if (property === undefined) expect(m, reply.text).to.not.have.property('property');
  else expect(m.property, reply.text).to.equal(property);
  return m;
}

/** Asserts a plain success: status (200 by default) and no messages. */
export function expectOk(reply: Reply, status = 200): Envelope {
  expect(reply.status, reply.text).to.equal(status);
  expect(reply.body.messages, reply.text).to.deep.equal([]);
  return reply.body;
}

/** `GET /sales-order?<query>`: the page of items, asserting a plain 200. */
export async function listOrders(server: TestServer, query: string): Promise<OrderItem[]> {
  const reply = await server.call(`/sales-order?${query}`);
  expectOk(reply);
  expect(reply.body.result).to.be.an('array');
  return reply.body.result as OrderItem[];
}

/** How many orders match `query`, from `totalCount` (with take=0, so no rows travel). */
export async function countOrders(server: TestServer, query = ''): Promise<number> {
  const reply = await server.call(`/sales-order?${query ? query + '&' : ''}take=0&getTotalCount=true`);
  expectOk(reply);
  expect(reply.body.result).to.deep.equal([]);
  expect(reply.body.totalCount).to.be.a('number');
  return reply.body.totalCount!;
}

/** Every order matching `query`, fetched page by page with `take=pageSize`. */
export async function pageThrough(server: TestServer, query: string, pageSize: number): Promise<{ items: OrderItem[]; pages: number }> {
  const items: OrderItem[] = [];
  let pages = 0;
  for (;;) {
    const page = await listOrders(server, `${query ? query + '&' : ''}skip=${items.length}&take=${pageSize}`);
    pages++;
    items.push(...page);
    if (page.length < pageSize) return { items, pages };
    if (pages > 10_000) throw new Error('paging never ended');
  }
}

/** A valid create body; `overrides` replace or add fields. */
export function newOrderData(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { customerId: 11000, status: 1, onlineOrderFlag: true, ...overrides };
}

/** Creates an order (asserting 201) and answers its id and Location. */
export async function createOrder(server: TestServer, overrides: Record<string, unknown> = {}): Promise<{ id: number; location: string }> {
  const reply = await server.call('/sales-order', { method: 'POST', body: newOrderData(overrides) });
  expectOk(reply, 201);
  const id = reply.body.result.salesOrderId as number;
  expect(id).to.be.a('number');
  return { id, location: reply.headers.get('Location')! };
}

/** `GET /sales-order/{id}`, asserting 200; the read output as the wire has it. */
export async function readOrder(server: TestServer, id: number): Promise<Record<string, unknown>> {
  const reply = await server.call(`/sales-order/${id}`);
  expectOk(reply);
  return reply.body.result as Record<string, unknown>;
}

/** A request to the server's origin, ignoring the API prefix (for paths outside or including it). */
export async function callOrigin(server: TestServer, path: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as Envelope) : (undefined as unknown as Envelope) };
}

/** Every property name of a JSON value, at every depth. */
export function propertyNames(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) propertyNames(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      propertyNames(v, out);
    }
  }
  return out;
}

/** Asserts no property anywhere in the JSON text has the value null. */
export function expectNoNullProperties(text: string): void {
  expect(text).to.not.match(/"[^"]*":null/);
}

/** The routes folder of the caller-attributes probe (see attribute-routes/caller-attributes.ts), as compiled. */
export const attributeRoutesDir = fileURLToPath(new URL('./attribute-routes/', import.meta.url));
/** A CLI serving that probe route besides the layer's (see attribute-cli.ts), for `serve --workers N`. */
export const attributeCliPath = fileURLToPath(new URL('./attribute-cli.js', import.meta.url));
