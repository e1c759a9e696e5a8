import { expect } from 'chai';
import { LookupCache } from '../../lib/lookup/lookup-cache.js';
import type { LookupTable } from '../../lib/lookup/lookup-table.js';
import { type TestServer, startTestServer } from '../support/server.js';

describe('lookup cache loading', () => {
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

    it('twenty concurrent first GETs of a table answer the same content and ETag', async () => {
      const replies = await Promise.all(Array.from({ length: 20 }, () => server.call('/lookup-table/sales-territory')));
      expect(replies.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
      expect(new Set(replies.map((r) => r.headers.get('ETag'))).size).to.equal(1);
      expect(new Set(replies.map((r) => r.text)).size).to.equal(1);
    });
  });
});
