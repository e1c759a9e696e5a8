import { expect } from 'chai';
import { type Kysely, StoredDate, sql } from 'restlayer';
import { type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { describeStores } from '../support/stores.js';

/**
 * Dates as the store reads them: the instant the column holds, serialised to the same ISO text as toISOString()
 * gives, and StoredDates (their text kept, so JSON.stringify writes it without Date#toJSON) where the store's text
 * is canonical: SQLite's ISO text, PostgreSQL's timestamptz in a UTC session (lib/storage/postgres-types.ts).
 */
describeStores(`dates read from the store (${testProvider})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let db: Kysely<unknown>;
  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
    db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
  });
  after(() => server?.stop());

  const instants = ['2025-12-30T08:15:00.000Z', '2025-12-30T08:15:00.250Z', '1999-01-01T23:59:59.999Z', '2026-02-28T00:00:00.100Z'];

  it('a stored date reads back as the same instant and serialises to its ISO text', async () => {
    const values = server.infrastructure.storage.values;
    for (const iso of instants) {
      const stored = values.date(new Date(iso));
      const { rows } = testProvider === 'postgres'
        ? await sql<{ d: Date }>`select ${stored}::timestamptz as d`.execute(db)
        : await sql<{ d: string }>`select ${stored} as d`.execute(db);
      const date = values.toDate(rows[0].d);
      expect(date.getTime(), iso).to.equal(Date.parse(iso));
      expect(JSON.stringify({ date }), iso).to.equal(`{"date":"${iso}"}`);
      expect(date, iso).to.be.instanceOf(StoredDate);
    }
  });

  if (testProvider === 'postgres') {
    it('microseconds are cut to milliseconds, as pg\'s own parser does; a changed date serialises its new instant', async () => {
      const { rows } = await sql<{ d: Date }>`select timestamptz '2025-12-30 08:15:00.123987+00' as d`.execute(db);
      expect(JSON.stringify(rows[0].d)).to.equal('"2025-12-30T08:15:00.123Z"');
      rows[0].d.setUTCFullYear(2024);
      expect(JSON.stringify(rows[0].d)).to.equal('"2024-12-30T08:15:00.123Z"');
    });

    it('a session in another time zone still reads the same instants (pg\'s parser, plain Dates)', async () => {
      const dates = await db.transaction().execute(async (trx) => {
        await sql`set local time zone 'America/St_Johns'`.execute(trx);
        return (await sql<{ d: Date }>`select unnest(${instants}::timestamptz[]) as d`.execute(trx)).rows.map((r) => r.d);
      });
      expect(dates.map((d) => d.toISOString())).to.deep.equal(instants);
      expect(dates.some((d) => d instanceof StoredDate)).to.equal(false);
    });
  }
});
