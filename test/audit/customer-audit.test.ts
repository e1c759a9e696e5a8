import { expect } from 'chai';
import { expectError, expectOk } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { auditCount, customerFields, expectedChanges, history, mergePatch, read } from './audit-support.js';
import { describeStores } from '../support/stores.js';

/** Issue 24 item 4 (contract part 11) for the second sample service: each customer write leaves one entry, failures none. */
describeStores('audit: customers', function () {
  this.timeout(60_000);
  let server: TestServer;
  let territories: number[];
  before(async () => {
    server = await startTestServer();
    const table = expectOk(await server.call('/lookup-table/sales-territory')).result.data as { id: number; isActive: boolean }[];
    territories = table.filter((t) => t.isActive).map((t) => t.id);
  });
  after(() => server.stop());

  const path = (id: number) => `/customer/${id}`;
  let serial = 0;
  const unique = () => `AUD${process.pid % 1000}-${++serial}`;
  async function create(body: object): Promise<number> {
    return expectOk(await server.call('/customer', { method: 'POST', body }), 201).result.customerId as number;
  }

  it('create, PUT, PATCH and DELETE each record their operation, the tester and exactly the fields that changed', async () => {
    const account = unique();
    const id = await create({ name: 'Audited Customer', accountNumber: account, territoryId: territories[0] });
    const created = await read(server, path(id));
    let entries = await history(server, path(id));
    expect(entries).to.have.length(1);
    expect(entries[0]).to.deep.include({ user: 'tester', operation: 'create' });
    expect(entries[0].changes).to.have.deep.members([
      { field: 'name', new: 'Audited Customer' },
      { field: 'accountNumber', new: account },
      { field: 'territoryId', new: territories[0] },
      { field: 'revisionNumber', new: 1 },
    ]);

    expectOk(await server.call(path(id), { method: 'PUT', body: { name: 'Renamed', territoryId: territories[1], revisionNumber: 1 } }));
    const put = await read(server, path(id));
    entries = await history(server, path(id));
    expect(entries[0].operation).to.equal('update');
    expect(entries[0].changes).to.have.deep.members([
      { field: 'name', old: 'Audited Customer', new: 'Renamed' },
      { field: 'accountNumber', old: account },
      { field: 'territoryId', old: territories[0], new: territories[1] },
      { field: 'revisionNumber', old: 1, new: 2 },
    ]);
    expect(entries[0].changes).to.have.deep.members(expectedChanges(customerFields(created), customerFields(put)));

    expectOk(await server.call(path(id), { method: 'PATCH', body: { accountNumber: account }, headers: mergePatch }));
    entries = await history(server, path(id));
    expect(entries[0].operation).to.equal('patch');
    expect(entries[0].changes).to.have.deep.members([{ field: 'accountNumber', new: account }, { field: 'revisionNumber', old: 2, new: 3 }]);

    expectOk(await server.call(path(id), { method: 'DELETE' }));
    entries = await history(server, path(id));
    expect(entries.map((e) => e.operation)).to.deep.equal(['delete', 'patch', 'update', 'create']);
    expect(entries[0].changes).to.have.deep.members([
      { field: 'name', old: 'Renamed' }, { field: 'accountNumber', old: account }, { field: 'territoryId', old: territories[1] }, { field: 'revisionNumber', old: 3 },
    ]);
  });

  it('a write that fails leaves no entry: 400, 409 stale revision, 409 duplicate, 409 in use, 404', async () => {
    const account = unique();
    const id = await create({ name: 'Kept', accountNumber: account });
    const count = await auditCount(server);
    expectError(await server.call(path(id), { method: 'PUT', body: { name: 'x', territoryId: 99_999 } }), 400, 'Customer_InvalidTerritoryId', 'territoryId');
    expectError(await server.call(path(id), { method: 'PUT', body: { name: 'x', revisionNumber: 5 } }), 409, 'Entity_Concurrency', 'revisionNumber');
    expectError(await server.call(path(id), { method: 'PATCH', body: { name: 'x', revisionNumber: 5 }, headers: mergePatch }), 409, 'Entity_Concurrency', 'revisionNumber');
    expectError(await server.call('/customer', { method: 'POST', body: { name: 'Twin', accountNumber: account.toLowerCase() } }), 409, 'Entity_Duplicate', 'accountNumber');
    expectError(await server.call(path(2_000_000_000), { method: 'PUT', body: { name: 'x' } }), 404, 'Entity_NotFound');
    expectError(await server.call(path(2_000_000_000), { method: 'DELETE' }), 404, 'Entity_NotFound');
    // Customer 11000 has sample orders: 409 Entity_InUse, nothing deleted, nothing recorded.
    expectError(await server.call(path(11000), { method: 'DELETE' }), 409, 'Entity_InUse');
    expect(await auditCount(server)).to.equal(count);
    expect(await history(server, path(id))).to.have.length(1);
  });

  it('concurrent PATCHes are each audited once, revisions in sequence', async () => {
    const id = await create({ name: 'Busy' });
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      server.call(path(id), { method: 'PATCH', body: { name: `Busy ${i}` }, headers: mergePatch })));
    for (const reply of replies) expect([200, 409], reply.text).to.include(reply.status);
    const written = replies.filter((r) => r.status === 200).length;
    const patches = (await history(server, path(id))).filter((e) => e.operation === 'patch').reverse();
    expect(patches).to.have.length(written);
    patches.forEach((entry, i) => expect(entry.changes).to.deep.include({ field: 'revisionNumber', old: i + 1, new: i + 2 }));
  });
});
