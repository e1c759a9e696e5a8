// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import { expect } from 'chai';
import type { TestServer } from '../support/server.js';

/** A customer as the wire carries it: optional fields absent when they have no value. */
export interface CustomerJson {
  name: string;
  accountNumber?: string;
  territoryId?: number;
}

/** The ids of a lookup table: those a record may name, and one the table does not have. */
export interface LookupValues {
  active: number[];
  absent: number;
}

/** The lookup tables the fields reference, as the server has them. */
export interface LookupIds {
  territoryId: LookupValues;
}

export async function lookupIds(server: TestServer): Promise<LookupIds> {
  return {
    territoryId: await lookupValues(server, 'sales-territory'),
  };
}

async function lookupValues(server: TestServer, type: string): Promise<LookupValues> {
  const reply = await server.call(`/lookup-table/${encodeURIComponent(type)}`);
  expect(reply.status, `lookup table ${type}: ${reply.text}`).to.equal(200);
  const entries = (reply.body.result.data as { id: unknown; isActive: boolean }[]).filter((e): e is { id: number; isActive: boolean } => typeof e.id === 'number');
  const active = entries.filter((e) => e.isActive).map((e) => e.id);
  expect(active, `lookup table ${type} has no active entry with an integer id`).to.not.be.empty;
  return { active, absent: Math.max(0, ...entries.map((e) => e.id)) + 1 };
}

/** Row `n`'s choice among the active ids. */
const pick = (values: LookupValues, n: number) => values.active[n % values.active.length];

/** Text that sorts alike under every collation: a fixed prefix and zero-padded digits, cut to `max` from the left. */
const text = (prefix: string, n: number, max = Infinity) => `${prefix}${String(n).padStart(4, '0')}`.slice(-max);

/** Row `n` of a data set: every field set, each value within its limits and growing with `n`. */
export function rowData(n: number, ids: LookupIds): Required<CustomerJson> {
  return {
    name: text('N', n, 100),
    accountNumber: text('A', n, 15),
    territoryId: pick(ids.territoryId, n + 2),
  };
}

/** Row `n` with the required fields only. */
export function requiredData(n: number, ids: LookupIds): CustomerJson {
  const row = rowData(n, ids);
  return { name: row.name };
}
