import { expect } from 'chai';
import { LookupCache, type LookupTable } from 'restlayer';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { salesDb } from '../support/sales-db.js';
import { describeStores } from '../support/stores.js';

describeStores('lookup cache loading', () => {
  it('concurrent first requests share one load; a flush makes the next request load again', async () => {
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const cache = new LookupCache().register('colours', async (): Promise<LookupTable> => {
      loads++;
      await gate;
      return { type: 'colours', caseSensitive: false, data: [{ id: 1, text: 'Red', isActive: true, attributes: {} }] };
    });
    const pending = Array.from({ length: 20 }, () => cache.get('Colours')!);
    release();
    const tables = await Promise.all(pending);
    expect(loads).to.equal(1);
    expect(new Set(tables.map((t) => t.etag)).size).to.equal(1);
    await cache.remove('colours');
    await cache.get('colours');
    expect(loads).to.equal(2);
  });

  it('a load in flight when a flush comes is not cached: the next request loads again and gets the new content', async () => {
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const cache = new LookupCache().register('colours', async (): Promise<LookupTable> => {
      const load = ++loads;
      if (load === 1) await gate;
      return { type: 'colours', caseSensitive: false, data: [{ id: 1, text: load === 1 ? 'Red' : 'Crimson', isActive: true, attributes: {} }] };
    });
    const inFlight = cache.get('colours')!;
    await cache.remove('colours');
    release();
    // The request that started before the flush gets what it asked for; nobody after the flush sees it.
    expect((await inFlight).table.data[0].text).to.equal('Red');
    expect((await cache.get('colours')!).table.data[0].text).to.equal('Crimson');
    expect((await cache.get('colours')!).table.data[0].text).to.equal('Crimson');
    expect(loads).to.equal(2);
  });

  it('a failed load is forgotten, so the next request retries', async () => {
    let attempts = 0;
    const cache = new LookupCache().register('flaky', async () => {
      if (++attempts === 1) throw new Error('database hiccup');
      return { type: 'flaky', caseSensitive: false, data: [] };
    });
    let failed = false;
    await cache.get('flaky')!.catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect((await cache.get('flaky')!).table.type).to.equal('flaky');
    expect(attempts).to.equal(2);
  });

  describe('over HTTP', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.stop());

    it('a flush racing loads of the table: once the flush has answered, no GET serves what the table held before it', async () => {
      const admin = server.token({ role: ['Administrator'] });
      const flush = () => server.call('/lookup-table/sales-order-status', { method: 'DELETE', token: admin });
      const text = (reply: Reply) => (reply.body.result.data as { id: number; text: string }[]).find((s) => s.id === 3)!.text;
      const db = salesDb(server.infrastructure.storage);
      try {
        for (let round = 0; round < 10; round++) {
          expect((await flush()).status).to.equal(200);
          // Loads in flight (the cache is cold), while the table changes and is flushed, as an operator does.
          const loads = Array.from({ length: 10 }, () => server.call('/lookup-table/sales-order-status'));
          await db.updateTable('sales_order_status').set({ name: `Backordered ${round}` }).where('status_id', '=', 3).execute();
          expect((await flush()).status).to.equal(200);
          const after = await Promise.all(Array.from({ length: 5 }, () => server.call('/lookup-table/sales-order-status')));
          expect(after.map(text), `round ${round}`).to.deep.equal(Array(5).fill(`Backordered ${round}`));
          for (const load of await Promise.all(loads)) expect(load.status).to.equal(200);
        }
      } finally {
        await db.updateTable('sales_order_status').set({ name: 'Backordered' }).where('status_id', '=', 3).execute();
        await flush();
      }
    });

    it('twenty concurrent first GETs of a table answer the same content and ETag', async () => {
      const replies = await Promise.all(Array.from({ length: 20 }, () => server.call('/lookup-table/sales-territory')));
      expect(replies.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
      expect(new Set(replies.map((r) => r.headers.get('ETag'))).size).to.equal(1);
      expect(new Set(replies.map((r) => r.text)).size).to.equal(1);
    });
  });
});
