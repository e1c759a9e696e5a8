import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { growOrders } from '../support/grow-orders.js';
import type { Reply, TestServer } from '../support/server.js';

/** Orders the scope suites grow the sample to: the busiest sales person then has over 1,500 (deep pages past 1,000). */
export const SCOPE_ORDERS = 48_000;

/** A list item of orders, as the scope suites compare them. */
export interface OrderItem {
  salesOrderId: number;
  salesPersonId?: number;
  customerId: number;
}

/** The sales person with the most orders, and how many. */
export async function busiestSalesPerson(server: TestServer): Promise<{ id: number; orders: number }> {
  let best = { id: 0, orders: 0 };
  for (let id = 274; id <= 290; id++) {
    const orders = (await server.call(`/sales-order?take=0&getTotalCount=true&salesPersonId=${id}`)).body.totalCount ?? 0;
    if (orders > best.orders) best = { id, orders };
  }
  return best;
}

/** Grows the sample for the scope suites (deep pages of one sales person). */
export async function growForScopes(server: TestServer): Promise<void> {
  expect(await growOrders(server.infrastructure.storage, SCOPE_ORDERS)).to.be.at.least(SCOPE_ORDERS);
}

/**
 * A user of `roles` with `attributes` in the store, and a token for them (the server reads their attributes per
 * request, by the token's subject).
 */
export async function scopedUser(server: TestServer, userName: string, roles: string[], attributes: Record<string, string> = {}): Promise<string> {
  const added = await withErrorScope(() => server.services.users.add({ userName, password: `${userName}-password-1`, roles }, attributes));
  if (!added.result) throw new Error(`could not add ${userName}: ${added.messages.map((m) => m.message).join(' ')}`);
  return server.token({ sub: userName, name: userName, role: roles });
}

/** A 200 list's items and count. */
export function listOf<T = OrderItem>(reply: Reply): { items: T[]; totalCount?: number; nextCursor?: string } {
  expect(reply.status, reply.text).to.equal(200);
  return { items: reply.body.result as T[], totalCount: reply.body.totalCount, nextCursor: (reply.body as { nextCursor?: string }).nextCursor };
}

/** The answer is a 404 Entity_NotFound (and nothing else). */
export function expectNotFound(reply: Reply, what: string): void {
  expect(reply.status, `${what}: ${reply.text}`).to.equal(404);
  expect(reply.body.messages.map((m) => m.code), what).to.deep.equal(['Entity_NotFound']);
}

/** The answer is a 403 Security_Forbidden. */
export function expectForbidden(reply: Reply, what: string): void {
  expect(reply.status, `${what}: ${reply.text}`).to.equal(403);
  expect(reply.body.messages.map((m) => m.code), what).to.include('Security_Forbidden');
}
