import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { createLogger, inTransaction, pruneAudit, startAuditRetention } from 'restlayer';
import { expectOk } from '../support/api.js';
import { cliEnv } from '../support/cli-env.js';
import { killChildren, runCli } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH } from '../support/users.js';
import { until } from '../support/wait.js';
import { auditCount, auditText, history, mergePatch } from './audit-support.js';
import { describeStores } from '../support/stores.js';

const DAY = 86_400_000;

describeStores('audit: no secret in any entry; retention', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ sampleData: false, config: { ...FAST_HASH } });
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });
  const db = () => server.infrastructure.storage.db as unknown as Kysely<unknown>;

  it('a user whose password the CLI set, who then writes: nothing of the password, its hash or the tokens in audit_entry', async () => {
    const cli = async (args: string[]) => {
      const run = await runCli(['user', ...args], { env: cliEnv(server) });
      expect(run.code, run.stderr).to.equal(0);
    };
    const first = 'Tr0ub4dor&3-first-password';
    const second = 'correct-horse-battery-staple-2';
    await cli(['add', 'keeper', '--role', 'Clerk', '--password', first]);
    await cli(['set-password', 'keeper', '--password', second]);
    const login = expectOk(await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'keeper', password: second } }));
    const { accessToken, refreshToken } = login.result as { accessToken: string; refreshToken: string };
    const customer = expectOk(await server.call('/customer', { method: 'POST', token: accessToken, body: { name: 'Keeper\'s customer' } }), 201).result.customerId as number;
    expectOk(await server.call(`/customer/${customer}`, { method: 'PATCH', token: accessToken, body: { name: 'Renamed by keeper' }, headers: mergePatch }));
    const entries = await history(server, `/customer/${customer}`);
    expect(entries.map((e) => e.user)).to.deep.equal(['keeper', 'keeper']);

    const { rows } = await sql<{ password_hash: string }>`select password_hash from app_user where user_name = 'keeper'`.execute(db());
    const text = await auditText(server);
    expect(text).to.include('Renamed by keeper');
    for (const secret of [first, second, rows[0].password_hash, accessToken, refreshToken]) expect(text).to.not.include(secret);
  });

  // The recorder's own redaction of any change list: lib/audit/record-audit.test.ts.

  /** `n` entries of record `retention/<recordId>` written `daysAgo` days ago. */
  async function entriesOf(recordId: string, n: number, daysAgo: number) {
    const at = new Date(Date.now() - daysAgo * DAY);
    await inTransaction(server.infrastructure.storage.db, async (trx) => {
      // As the layer records an entry (lib/audit/record-audit.ts): the date as ISO text, which both stores take.
      for (let i = 0; i < n; i++) {
        await sql`insert into audit_entry (entity, record_id, at, user_name, operation, changes)
          values ('retention', ${recordId}, ${at.toISOString()}, 'probe', 'update', '[]')`.execute(trx);
      }
    });
  }
  const countOf = async (recordId: string) => Number((await sql<{ n: number | string }>`select count(*) as n from audit_entry
    where entity = 'retention' and record_id = ${recordId}`.execute(db())).rows[0].n);

  it('pruneAudit deletes the entries older than the retention, in batches, and keeps the younger ones; 0 keeps everything', async () => {
    await entriesOf('old', 2_300, 45);
    await entriesOf('young', 3, 5);
    const before = await auditCount(server);
    expect(await pruneAudit(server.infrastructure.storage, 0)).to.equal(0);
    expect(await auditCount(server)).to.equal(before);
    expect(await pruneAudit(server.infrastructure.storage, 30)).to.equal(2_300);
    expect(await countOf('old')).to.equal(0);
    expect(await countOf('young')).to.equal(3);
    expect(await pruneAudit(server.infrastructure.storage, 30)).to.equal(0);
  });

  it('Audit:RetentionDays prunes at startup and then on its schedule, logging what it deleted', async () => {
    await entriesOf('scheduled', 5, 10);
    const lines: string[] = [];
    const log = createLogger('info', (line) => lines.push(line));
    // A short period stands in for the day.
    const retention = startAuditRetention(server.infrastructure.storage, 7, log, 200);
    try {
      await until(async () => (await countOf('scheduled')) === 0, 'the startup round');
      await entriesOf('scheduled', 2, 8);
      await until(async () => (await countOf('scheduled')) === 0, 'a scheduled round');
    } finally {
      await retention.stop();
    }
    expect(lines.some((line) => line.includes('audit entries pruned'))).to.equal(true);
    expect(await countOf('young')).to.equal(3);
  });
});
