import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inTransaction } from '../storage/transaction.js';
import { describeStores } from '../testing/stores.js';
import { type TestServer, startTestServer } from '../testing/test-server.js';
import { recordAudit } from './record-audit.js';
import { REDACTED } from './secrets.js';

/**
 * The recorder every write of a declared resource stores its entry with: the values of fields named like secrets are
 * redacted, whatever the change list it is given holds (a field of a child, a snake_case name). On a server of the
 * layer's own modules only (audit_entry is the layer's table), on both stores.
 */
describeStores('audit: the recorder redacts secrets', function () {
  this.timeout(60_000);
  let server: TestServer;
  // No application modules or routes: an empty routes folder.
  const routesDir = mkdtempSync(join(tmpdir(), 'restlayer-record-audit-'));
  before(async () => {
    server = await startTestServer({ application: { modules: [], routesDir } });
  });
  after(async () => {
    await server?.stop();
    rmSync(routesDir, { recursive: true, force: true });
  });

  it('the recorder redacts the values of fields named like secrets, whatever a service passes it', async () => {
    await inTransaction(server.infrastructure.storage.db, (trx) => recordAudit(trx, {
      entity: 'probe', recordId: 1, operation: 'update', user: 'probe-user',
      changes: [
        { field: 'password', old: 'old-pass-value', new: 'new-pass-value' },
        { field: 'passwordHash', new: 'scrypt$hash-value' },
        { field: 'lines[3].apiKey', old: 'api-key-value' },
        { field: 'refresh_token', new: 'token-value' },
        { field: 'clientSecret', new: 'secret-value' },
        { field: 'name', old: 'Plain', new: 'Still plain' },
      ],
    }));
    const db = server.infrastructure.storage.db as unknown as Kysely<unknown>;
    const { rows } = await sql<{ changes: string }>`select changes from audit_entry where entity = 'probe'`.execute(db);
    expect(JSON.parse(rows[0].changes)).to.deep.equal([
      { field: 'password', old: REDACTED, new: REDACTED },
      { field: 'passwordHash', new: REDACTED },
      { field: 'lines[3].apiKey', old: REDACTED },
      { field: 'refresh_token', new: REDACTED },
      { field: 'clientSecret', new: REDACTED },
      { field: 'name', old: 'Plain', new: 'Still plain' },
    ]);
    for (const value of ['old-pass-value', 'new-pass-value', 'hash-value', 'api-key-value', 'token-value', 'secret-value']) {
      expect(rows[0].changes).to.not.include(value);
    }
  });
});
