import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { expectOk, qs } from '../support/api.js';
import type { TestServer } from '../support/server.js';

export type Value = string | number | boolean;
export interface Change { field: string; old?: Value; new?: Value }
export interface Entry { at: string; user: string; operation: string; changes: Change[] }

export const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

/** GET …/history (of `/sales-order/7` or `/customer/3`), asserting a plain 200. */
export async function history(server: TestServer, record: string, page: { skip?: number; take?: number } = {}, token?: string): Promise<Entry[]> {
  const query = qs(Object.entries(page).filter((e): e is [string, number] => e[1] !== undefined));
  const reply = await server.call(`${record}/history${query ? `?${query}` : ''}`, token === undefined ? {} : { token });
  return expectOk(reply).result as Entry[];
}

/** The newest entry of a record's history. */
export async function latest(server: TestServer, record: string): Promise<Entry> {
  const [entry] = await history(server, record, { take: 1 });
  expect(entry, `${record} has no history`).to.not.equal(undefined);
  return entry;
}

/** How many audit entries the store holds, behind the API. */
export async function auditCount(server: TestServer): Promise<number> {
  const db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from audit_entry`.execute(db);
  return Number(rows[0].n);
}

/** Every audit entry's text (user, operation, changes), for a search of what must never be there. */
export async function auditText(server: TestServer): Promise<string> {
  const db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
  const { rows } = await sql<{ t: string }>`select entity || ' ' || record_id || ' ' || user_name || ' ' || operation || ' ' || changes as t from audit_entry`.execute(db);
  return rows.map((r) => r.t).join('\n');
}

const HEADER = [
  'salesOrderNumber', 'status', 'orderDate', 'dueDate', 'shipDate', 'customerId', 'territoryId', 'salesPersonId', 'onlineOrderFlag',
  'purchaseOrderNumber', 'accountNumber', 'comment', 'subTotal', 'taxAmt', 'freight', 'totalDue', 'revisionNumber',
] as const;
const LINE = ['productId', 'orderQty', 'unitPrice', 'unitPriceDiscount', 'lineTotal'] as const;

type Wire = Record<string, unknown>;

/** An order as `GET /sales-order/{id}` answers it, as flat fields: the header's, and `lines[<id>].<field>` of each line. */
export function orderFields(order: Wire | undefined, onlyLine?: number): Record<string, Value> {
  if (!order) return {};
  const fields: Record<string, Value> = {};
  for (const f of HEADER) if (order[f] !== undefined) fields[f] = order[f] as Value;
  for (const line of order.lines as Wire[]) {
    if (onlyLine !== undefined && line.salesOrderDetailId !== onlyLine) continue;
    for (const f of LINE) fields[`lines[${line.salesOrderDetailId}].${f}`] = line[f] as Value;
  }
  return fields;
}

/** A customer as `GET /customer/{id}` answers it, as the audited fields. */
export function customerFields(customer: Wire | undefined): Record<string, Value> {
  if (!customer) return {};
  const fields: Record<string, Value> = {};
  for (const f of ['name', 'accountNumber', 'territoryId', 'revisionNumber']) if (customer[f] !== undefined) fields[f] = customer[f] as Value;
  return fields;
}

/** What the changes between two wire states are: each field whose value differs, old and new where present. */
export function expectedChanges(before: Record<string, Value>, after: Record<string, Value>): Change[] {
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...fields].filter((f) => before[f] !== after[f]).map((field) => ({
    field, ...(before[field] !== undefined ? { old: before[field] } : {}), ...(after[field] !== undefined ? { new: after[field] } : {}),
  }));
}

/** The record as `GET` answers it. */
export async function read(server: TestServer, record: string): Promise<Wire> {
  return expectOk(await server.call(record)).result as Wire;
}
