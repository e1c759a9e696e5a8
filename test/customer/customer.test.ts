// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import { expect } from 'chai';
import { expectError, expectErrors, expectOk, qs } from '../support/api.js';
import { type Envelope, type TestServer, startTestServer } from '../support/server.js';
import { type CustomerJson, type LookupIds, lookupIds, requiredData, rowData } from './customer-data.js';
import { describeStores } from '../support/stores.js';

const path = '/customer';
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };
/** An id no record has: the largest the id column holds. */
const unknownId = 2_147_483_647;

type Item = Required<CustomerJson> & { customerId: number };

/** `items` in the order the server lists them: by `field`, then by id in the same direction. */
function sorted(items: Item[], field: keyof Item, direction: 'Ascending' | 'Descending'): Item[] {
  const sign = direction === 'Ascending' ? 1 : -1;
  return [...items].sort((a, b) => sign * (compare(a[field], b[field]) || a.customerId - b.customerId));
}

type Value = string | number | boolean | undefined;

/** Text (dates are ISO 8601 text) compares by its characters, numbers and booleans by value. */
function compare(a: Value, b: Value): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}

/** CN: the text holds the needle, ignoring case. */
const contains = (text: string, needle: string) => text.toLowerCase().includes(needle.toLowerCase());

describeStores('customer service', () => {
  describe('create, read, update, patch and delete', () => {
    let server: TestServer;
    let ids: LookupIds;
    before(async () => {
      server = await startTestServer({ sampleData: false });
      ids = await lookupIds(server);
    });
    after(() => server.stop());

    async function create(data: object): Promise<number> {
      const reply = await server.call(path, { method: 'POST', body: data });
      expectOk(reply, 201);
      return reply.body.result.customerId as number;
    }

    async function read(id: number): Promise<Record<string, unknown>> {
      const reply = await server.call(`${path}/${id}`);
      expectOk(reply);
      return reply.body.result as Record<string, unknown>;
    }

    async function count(): Promise<number> {
      const reply = await server.call(`${path}?take=0&getTotalCount=true`);
      expectOk(reply);
      return reply.body.totalCount as number;
    }

    const put = (id: number, body: object) => server.call(`${path}/${id}`, { method: 'PUT', body });
    const patch = (id: number, body: object) => server.call(`${path}/${id}`, { method: 'PATCH', body, headers: mergePatch });

    it('POST answers 201 with a Location that GETs the new customer, holding every field sent', async () => {
      const data = rowData(1, ids);
      const reply = await server.call(path, { method: 'POST', body: data });
      const { result } = expectOk(reply, 201);
      expect(Object.keys(result)).to.have.members(['customerId', 'revisionNumber', 'modifiedDate']);
      expect(result.revisionNumber).to.equal(1);
      expect(reply.headers.get('Location')).to.equal(`${path}/${result.customerId}`);
      const read = await server.call(reply.headers.get('Location')!);
      expect(expectOk(read).result).to.deep.equal({ customerId: result.customerId, ...data, revisionNumber: 1, modifiedDate: result.modifiedDate });
    });

    it('POST with the required fields only: the others are absent from the read, never null', async () => {
      const data = requiredData(2, ids);
      const id = await create(data);
      const record = await read(id);
      expect(record).to.deep.equal({ customerId: id, ...data, revisionNumber: 1, modifiedDate: record.modifiedDate });
    });

    it('reads property names case-insensitively', async () => {
      const data = rowData(3, ids);
      const id = await create(Object.fromEntries(Object.entries(data).map(([name, value]) => [name.toUpperCase(), value])));
      expect(await read(id)).to.include(data);
    });

    it('PUT replaces every field and answers the new revisionNumber and modifiedDate', async () => {
      const id = await create(rowData(4, ids));
      const data = rowData(5, ids);
      const { result } = expectOk(await put(id, { ...data, revisionNumber: 1 }));
      expect(Object.keys(result)).to.have.members(['revisionNumber', 'modifiedDate']);
      expect(result.revisionNumber).to.equal(2);
      expect(await read(id)).to.deep.equal({ customerId: id, ...data, ...result });
    });

    it('PUT clears the optional fields it leaves out (PUT replaces); without revisionNumber it checks no revision', async () => {
      const id = await create(rowData(6, ids));
      const data = requiredData(7, ids);
      const { result } = expectOk(await put(id, data));
      expect(await read(id)).to.deep.equal({ customerId: id, ...data, ...result });
    });

    it('a stale revisionNumber is a 409 Entity_Concurrency for PUT and PATCH, and nothing is written', async () => {
      const id = await create(rowData(8, ids));
      expectOk(await put(id, { ...rowData(9, ids), revisionNumber: 1 }));
      const current = await read(id);
      const m = expectError(await put(id, { ...rowData(10, ids), revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');
      expect(m.type).to.equal('Concurrency');
      expectError(await patch(id, { ...{ name: rowData(10, ids).name }, revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');
      expect(await read(id)).to.deep.equal(current);
    });

    it('concurrent updates at one revision: exactly one wins, the others are 409 and write nothing', async () => {
      const id = await create(rowData(11, ids));
      const bodies = Array.from({ length: 8 }, (_, i) => ({ ...rowData(12 + i, ids), revisionNumber: 1 }));
      const replies = await Promise.all(bodies.map((body) => put(id, body)));
      const won = replies.filter((r) => r.status === 200);
      expect(won, replies.map((r) => r.text).join('\n')).to.have.length(1);
      for (const r of replies) if (r.status !== 200) expectError(r, 409, 'Entity_Concurrency', 'revisionNumber');
      const { revisionNumber: _, ...winner } = bodies[replies.indexOf(won[0])];
      expect(await read(id)).to.deep.equal({ customerId: id, ...winner, ...won[0].body.result });
    });

    it('PATCH changes only the fields it names, and answers what PUT answers', async () => {
      const id = await create(rowData(20, ids));
      const before = await read(id);
      const change = { name: rowData(21, ids).name };
      const { result } = expectOk(await patch(id, change));
      expect(Object.keys(result)).to.have.members(['revisionNumber', 'modifiedDate']);
      expect(await read(id)).to.deep.equal({ ...before, ...change, ...result });
    });

    it('PATCH with null clears optional fields; plain application/json is read as a merge patch too', async () => {
      const id = await create(rowData(22, ids));
      const before = await read(id);
      const cleared = ['accountNumber', 'territoryId'];
      const reply = await server.call(`${path}/${id}`, { method: 'PATCH', body: Object.fromEntries(cleared.map((name) => [name, null])) });
      const { result } = expectOk(reply);
      const expected: Record<string, unknown> = { ...before, ...result };
      for (const name of cleared) delete expected[name];
      expect(await read(id)).to.deep.equal(expected);
    });

    it('PATCH with null on a required field is a 400 Input_Required on it, and nothing is written', async () => {
      const id = await create(rowData(23, ids));
      const before = await read(id);
      expectError(await patch(id, { name: null }), 400, 'Input_Required', 'name');
      expect(await read(id)).to.deep.equal(before);
    });

    it('PATCH keeps the key rules of PUT: a property named twice (in any case) or a reserved name is refused on it, and nothing is written', async () => {
      const id = await create(rowData(40, ids));
      expectOk(await put(id, { ...rowData(41, ids), revisionNumber: 1 }));
      const before = await read(id);
      const raw = (body: string) => server.call(`${path}/${id}`, { method: 'PATCH', body, headers: mergePatch });
      const value = JSON.stringify(rowData(42, ids).name);
      expectError(await raw(`{"name":${value},"NAME":${value}}`), 400, 'Input_Duplicate', 'name');
      expectError(await raw(`{"name":${value},"name":${value}}`), 400, 'Input_Duplicate', 'name');
      // A stale revision with a second spelling that asks for no check: ambiguous, never a write past the check.
      expectError(await raw(`{"revisionNumber":1,"name":${value},"REVISIONNUMBER":null}`), 400, 'Input_Duplicate', 'revisionNumber');
      for (const name of ['__proto__', 'constructor', 'prototype']) {
        expectError(await raw(`{"${name}":{"name":${value}}}`), 400, 'Input_ReservedName', name);
      }
      expect(await read(id)).to.deep.equal(before);
    });

    it('PATCH takes numbers and booleans sent as text, as PUT does', async () => {
      const data = rowData(43, ids);
      const asText = { territoryId: String(data.territoryId) };
      const expected = { territoryId: data.territoryId };
      const byPut = await create(rowData(44, ids));
      expectOk(await put(byPut, { ...data, ...asText }));
      expect(await read(byPut)).to.include(expected);
      const id = await create(rowData(44, ids));
      expectOk(await patch(id, asText));
      expect(await read(id)).to.include(expected);
    });

    it('an empty PATCH writes nothing and keeps the revision; a stale revisionNumber alone is still a 409', async () => {
      const id = await create(rowData(45, ids));
      const before = await read(id);
      const { result } = expectOk(await patch(id, {}));
      expect(result).to.deep.equal({ revisionNumber: before.revisionNumber, modifiedDate: before.modifiedDate });
      expectOk(await patch(id, { revisionNumber: before.revisionNumber }));
      expect(await read(id)).to.deep.equal(before);
      expectOk(await put(id, rowData(46, ids)));
      const current = await read(id);
      expectError(await patch(id, { revisionNumber: before.revisionNumber }), 409, 'Entity_Concurrency', 'revisionNumber');
      expect(await read(id)).to.deep.equal(current);
    });

    it('DELETE answers 200 with an envelope without result; then the customer is gone', async () => {
      const id = await create(rowData(24, ids));
      const total = await count();
      const reply = await server.call(`${path}/${id}`, { method: 'DELETE' });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({ messages: [] });
      expectError(await server.call(`${path}/${id}`), 404, 'Entity_NotFound');
      expect(await count()).to.equal(total - 1);
    });

    it('an unknown id is a 404 Entity_NotFound for GET, PUT, PATCH and DELETE', async () => {
      const replies = [
        await server.call(`${path}/${unknownId}`),
        await put(unknownId, rowData(25, ids)),
        await patch(unknownId, { name: rowData(25, ids).name }),
        await server.call(`${path}/${unknownId}`, { method: 'DELETE' }),
      ];
      for (const reply of replies) {
        const m = expectError(reply, 404, 'Entity_NotFound');
        expect(m.message).to.equal(`Customer with id ${unknownId} not found.`);
        expect(m.type).to.equal('Data');
      }
    });

    it('an id that is not a positive integer is a 400 on the route parameter', async () => {
      expectError(await server.call(`${path}/abc`), 400, 'Input_InvalidType', '_customerId');
      expectError(await server.call(`${path}/0`), 400, 'Input_OutOfRange', '_customerId');
    });

    it('POST without the required fields reports each on its property, and creates nothing', async () => {
      const total = await count();
      const messages = expectErrors(await server.call(path, { method: 'POST', body: {} }), 400, ['Input_Required']);
      expect(messages.map((m) => m.property)).to.have.members(['name']);
      expect(await count()).to.equal(total);
    });

    it('a value of the wrong type is reported on its property, every one of them, and nothing is written', async () => {
      const id = await create(rowData(26, ids));
      const before = await read(id);
      const wrong = {
        name: 42,
        accountNumber: 42,
        territoryId: 1.5,
      };
      const codes = ['Input_InvalidType', 'Input_InvalidType', 'Input_InvalidType'];
      for (const reply of [await server.call(path, { method: 'POST', body: wrong }), await put(id, wrong), await patch(id, wrong)]) {
        const messages = expectErrors(reply, 400, codes);
        expect(messages.map((m) => m.property)).to.have.members(['name', 'accountNumber', 'territoryId']);
      }
      expect(await read(id)).to.deep.equal(before);
    });

    it('an unknown property is refused on its name', async () => {
      expectError(await server.call(path, { method: 'POST', body: { ...rowData(27, ids), notAField: 1 } }), 400, 'Input_UnknownProperty', 'notAField');
    });

    const limits: [string, number][] = [['name', 100], ['accountNumber', 15]];
    for (const [name, max] of limits) {
      it(`${name} takes at most ${max} characters, on create and update`, async () => {
        const id = await create({ ...rowData(28, ids), [name]: 'x'.repeat(max) });
        expect((await read(id))[name]).to.equal('x'.repeat(max));
        expectError(await server.call(path, { method: 'POST', body: { ...rowData(28, ids), [name]: 'y'.repeat(max + 1) } }), 400, 'Input_TooLong', name);
        expectError(await put(id, { ...rowData(28, ids), [name]: 'z'.repeat(max + 1) }), 400, 'Input_TooLong', name);
        expect((await read(id))[name]).to.equal('x'.repeat(max));
      });
    }

    it('a required text field refuses the empty string', async () => {
      expectError(await server.call(path, { method: 'POST', body: { ...rowData(29, ids), name: '' } }), 400, 'Input_Required', 'name');
    });

    it('territoryId must name an active entry of lookup table sales-territory: otherwise a 400 on it, and nothing is written', async () => {
      const total = await count();
      const bad = { ...rowData(30, ids), territoryId: ids.territoryId.absent };
      expectError(await server.call(path, { method: 'POST', body: bad }), 400, 'Customer_InvalidTerritoryId', 'territoryId');
      expect(await count()).to.equal(total);
      const id = await create(rowData(30, ids));
      const before = await read(id);
      expectError(await put(id, bad), 400, 'Customer_InvalidTerritoryId', 'territoryId');
      expectError(await patch(id, { territoryId: ids.territoryId.absent }), 400, 'Customer_InvalidTerritoryId', 'territoryId');
      expect(await read(id)).to.deep.equal(before);
    });
  });

  describe('list: criteria, sorting and paging', () => {
    let server: TestServer;
    const rows: Item[] = [];
    before(async () => {
      server = await startTestServer({ sampleData: false });
      const ids = await lookupIds(server);
      for (let n = 0; n < 12; n++) {
        const data = rowData(n, ids);
        const reply = await server.call(path, { method: 'POST', body: data });
        expectOk(reply, 201);
        rows.push({ customerId: reply.body.result.customerId, ...data });
      }
    });
    after(() => server.stop());

    async function list(query: string): Promise<Envelope> {
      const reply = await server.call(`${path}?${query}`);
      expectOk(reply);
      return reply.body;
    }
    const idsOf = (items: Item[]) => items.map((r) => r.customerId);

    it('lists every record by id, each item holding its fields', async () => {
      expect((await list('')).result).to.deep.equal(rows);
    });

    it('pages with skip and take; getTotalCount counts every match', async () => {
      expect((await list('skip=3&take=4')).result).to.deep.equal(rows.slice(3, 7));
      expect(await list('take=2&getTotalCount=true')).to.deep.equal({ result: rows.slice(0, 2), messages: [], totalCount: rows.length });
      expect(await list('take=0&getTotalCount=true')).to.deep.equal({ result: [], messages: [], totalCount: rows.length });
      expect((await list('skip=12')).result).to.deep.equal([]);
    });

    it('sorts by each sortable field, both ways, ties broken by id in the same direction', async () => {
      for (const field of ['customerId', 'name', 'accountNumber', 'territoryId'] as const) {
        for (const direction of ['Ascending', 'Descending'] as const) {
          const { result } = await list(qs({ 'sort[0].fieldName': field, 'sort[0].sortDirection': direction }));
          expect(idsOf(result), `${field} ${direction}`).to.deep.equal(idsOf(sorted(rows, field, direction)));
        }
      }
    });

    it('filters on each filterable field as the criteria say, answering exactly the matching rows', async () => {
      const checks: [string, (r: Item) => boolean][] = [
      [qs({ name: rows[5].name }), (r) => r.name === rows[5].name],
      [qs({ name: rows[1].name.slice(-1), 'name.operator': 'CN' }), (r) => contains(r.name, rows[1].name.slice(-1))],
      [qs({ accountNumber: rows[5].accountNumber }), (r) => r.accountNumber === rows[5].accountNumber],
      [qs({ accountNumber: rows[1].accountNumber.slice(-1), 'accountNumber.operator': 'CN' }), (r) => contains(r.accountNumber, rows[1].accountNumber.slice(-1))],
      [qs({ territoryId: [rows[0].territoryId, rows[1].territoryId] }), (r) => r.territoryId === rows[0].territoryId || r.territoryId === rows[1].territoryId],
      ];
      for (const [query, matches] of checks) {
        const expected = rows.filter(matches);
        expect(expected, `${query} matches some rows`).to.not.be.empty;
        expect(idsOf((await list(query)).result), query).to.deep.equal(idsOf(expected));
        const { totalCount } = await list(`${query}&take=0&getTotalCount=true`);
        expect(totalCount, query).to.equal(expected.length);
      }
    });

    it('refuses an unknown criteria field and an unknown sort field, each on its property', async () => {
      expectError(await server.call(`${path}?notAField=1`), 400, 'Input_UnknownProperty', 'notAField');
      expectError(await server.call(`${path}?${qs({ 'sort[0].fieldName': 'notAField' })}`), 400, 'Input_InvalidValue', 'sort[0].fieldName');
    });
  });
});
