import { expect } from 'chai';
import { type Kysely, type Output, ServiceError, sql, withErrorScope } from 'restlayer';
import { asCaller } from 'restlayer/testing';
import { probeRoutesDir } from '../support/api.js';
import { scopeProbeModule } from '../support/scope-probe-module.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { describeStores } from '../support/stores.js';

type Probe = { scopeProbeId: number; owner: string; note?: string | null; revisionNumber: number; items: { scopeProbeItemId: number; label: string }[] };
interface ProbeService {
  read(id: number): Promise<Output<Probe>>;
  create(data: { owner: string; items?: { label: string }[] }): Promise<Output<{ scopeProbeId: number }>>;
  update(id: number, data: { owner: string; note?: string | null }): Promise<Output<unknown>>;
  patch(id: number, data: { owner?: string; note?: string | null }): Promise<Output<unknown>>;
  createItem(id: number, data: { label: string }): Promise<Output<unknown>>;
  deleteItem(id: number, itemId: number): Promise<Output<unknown>>;
}

/**
 * A write may not move a record out of the caller's record scope (the layer's reach check of the record as written,
 * lib/resources/reach.ts): a PUT or PATCH of the field the scope reads, and an item's write that changes what the
 * parent's scope counts, are each a 403 Security_Forbidden with nothing written and no audit entry; the same write
 * staying in scope is stored with its entry. Through the declared runtime, without HTTP (asCaller), on both stores:
 * PostgreSQL checks the row inside the UPDATE's own statement, SQLite in the transaction before it commits.
 */
describeStores(`record scopes: a declared write that would leave the caller's scope (${testProvider})`, function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    // A module reaches the test server with a routes folder; the probe is called without HTTP, so any folder serves.
    server = await startTestServer({ modules: [scopeProbeModule], routesDir: probeRoutesDir, sampleData: false, logLevel: 'error' });
  });
  after(() => server?.stop());

  const service = () => (server.services as unknown as { scopeProbe: ProbeService }).scopeProbe;
  const db = () => server.infrastructure.storage.db as unknown as Kysely<unknown>;
  const read = async (id: number) => (await withErrorScope(() => service().read(id))).result!;
  const entries = async (id: number) => Number((await sql<{ n: number | string }>`select count(*) as n from audit_entry
    where entity = 'scope-probe' and record_id = ${String(id)}`.execute(db())).rows[0].n);
  const newProbe = async (items: number) => {
    const created = await withErrorScope(() => service().create({ owner: 'ann', items: Array.from({ length: items }, (_, i) => ({ label: `item ${i}` })) }));
    expect(created.messages).to.deep.equal([]);
    return created.result!.scopeProbeId;
  };
  /** The codes of what `write` answers as `caller`: its messages, or those of the ServiceError it throws. */
  const codes = (caller: { scopes: string[]; attributes: Record<string, string> }, write: (s: ProbeService) => Promise<Output<unknown>>) =>
    asCaller({ permission: 'scope-probe.update', ...caller }, () => write(service())).then(
      (output) => output.messages.map((m) => m.code),
      (err: unknown) => {
        if (!(err instanceof ServiceError)) throw err;
        return err.messages.map((m) => m.code);
      },
    );

  it('a PUT or PATCH moving the record out of the caller\'s scope: 403 Security_Forbidden, nothing written, no audit entry', async () => {
    const id = await newProbe(1);
    const before = await read(id);
    const audited = await entries(id);
    const own = { scopes: ['own'], attributes: { owner: 'ann' } };
    expect(await codes(own, (s) => s.patch(id, { owner: 'bob', note: 'moved' }))).to.deep.equal(['Security_Forbidden']);
    expect(await codes(own, (s) => s.update(id, { owner: 'bob', note: 'moved' }))).to.deep.equal(['Security_Forbidden']);
    expect(await read(id)).to.deep.equal(before);
    expect(await entries(id)).to.equal(audited);
    // The same write staying in scope is stored, with its entry: the refusal above was the scope's, not the write's.
    expect(await codes(own, (s) => s.patch(id, { note: 'kept' }))).to.deep.equal([]);
    expect(await read(id)).to.include({ owner: 'ann', note: 'kept', revisionNumber: before.revisionNumber + 1 });
    expect(await entries(id)).to.equal(audited + 1);
  });

  it('an item\'s write that would move its parent out of the caller\'s scope: 403 Security_Forbidden, rolled back, no audit entry', async () => {
    const id = await newProbe(2);
    const before = await read(id);
    const audited = await entries(id);
    const few = { scopes: ['few'], attributes: { most: '2' } };
    expect(await codes(few, (s) => s.createItem(id, { label: 'third' }))).to.deep.equal(['Security_Forbidden']);
    expect(await read(id)).to.deep.equal(before);
    expect(await entries(id)).to.equal(audited);
    // Within the scope the same caller removes an item and adds one back: each stored, each with its entry.
    expect(await codes(few, (s) => s.deleteItem(id, before.items[0].scopeProbeItemId))).to.deep.equal([]);
    expect(await codes(few, (s) => s.createItem(id, { label: 'third' }))).to.deep.equal([]);
    expect((await read(id)).items.map((i) => i.label)).to.have.members(['item 1', 'third']);
    expect(await entries(id)).to.equal(audited + 2);
  });
});
