import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryPlan } from '../testing/query-plan.js';
import { describeStores } from '../testing/stores.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';
import { testProvider } from '../testing/test-stores.js';
import { historyPageSql } from './read-history.js';

/** Records and entries enough that a scan of the table, or a sort of a record's entries, shows in the plan. */
const RECORDS = 2_000;
const PER_RECORD = 25;

/**
 * The SQL of a history page (historyPageSql, which every declared resource's `GET …/{id}/history` runs through
 * readHistory) walks the index (entity, record_id, id): no scan of audit_entry, no sort. On a server of the layer's
 * own modules only (audit_entry is the layer's table), on both stores.
 */
describeStores(`audit: a history page reads the index (entity, record_id, id) (${testProvider})`, function () {
  this.timeout(300_000);
  let server: TestServer;
  // No application modules or routes: an empty routes folder.
  const routesDir = mkdtempSync(join(tmpdir(), 'restlayer-history-plan-'));
  before(async () => {
    server = await startTestServer({ application: { modules: [], routesDir } });
    const db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
    // RECORDS × PER_RECORD entries of one entity, interleaved as writes to many records are.
    const at = new Date().toISOString();
    if (testProvider === 'postgres') {
      await sql`insert into audit_entry (entity, record_id, at, user_name, operation, changes)
        select 'sales-order', (n % ${RECORDS})::text, ${at}::timestamptz, 'bench', case when n < ${RECORDS} then 'create' else 'patch' end, '[]'
        from generate_series(0, ${RECORDS * PER_RECORD - 1}) as n`.execute(db);
      await sql`analyze audit_entry`.execute(db);
    } else {
      await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${RECORDS * PER_RECORD - 1})
        insert into audit_entry (entity, record_id, at, user_name, operation, changes)
        select 'sales-order', cast(i % ${RECORDS} as text), ${at}, 'bench', case when i < ${RECORDS} then 'create' else 'patch' end, '[]' from n`.execute(db);
      await sql`analyze`.execute(db);
    }
  });
  after(async () => {
    await server?.stop();
    rmSync(routesDir, { recursive: true, force: true });
  });

  for (const [name, skip] of [['the first page', 0], ['a later page', 10]] as const) {
    it(`${name}: the index only, no scan of the table, no sort`, async () => {
      const { storage } = server.infrastructure;
      const plan = await queryPlan(storage, historyPageSql(storage, 'sales-order', 777, skip, 11));
      const text = plan.join(' | ');
      expect(text).to.include('ix_audit_entry_record');
      if (testProvider === 'postgres') {
        expect(plan.filter((step) => /^Seq Scan/.test(step)), text).to.deep.equal([]);
        expect(plan.filter((step) => /^Sort\b/.test(step)), text).to.deep.equal([]);
      } else {
        expect(plan.filter((step) => /^SCAN audit_entry\b/.test(step)), text).to.deep.equal([]);
        expect(plan.filter((step) => /TEMP B-TREE/.test(step)), text).to.deep.equal([]);
      }
    });
  }
});
