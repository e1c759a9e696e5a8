import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'chai';
import { killChildren, runCli, sqliteServeEnv } from '../support/processes.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';

/**
 * Every process that opens an SQLite database sets it up (migrations, seeds), so commands run at once on a new
 * database (a server starting while an operator adds its first user) each did: they created the same tables, and all
 * but one failed ("table app_user already exists"). They now take turns (lib/storage/sqlite-setup-lock.ts; PostgreSQL
 * has its advisory lock). Three `user add` at once on a new file: all succeed, the schema made once.
 */
describeOneStore('CLI commands setting up one new SQLite database at once', WHY_ONE_STORE.cli, function () {
  this.timeout(120_000);
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  it('each succeeds; the database holds all three users', async () => {
    const db = join(makeTempDir('restlayer-setup-race-'), 'new.db');
    const env = sqliteServeEnv(db, randomBytes(32).toString('base64url'), { Storage__SampleData: 'false', Authentication__PasswordHashCost: '10' });
    const users = ['ada', 'bo', 'cy'];
    const runs = await Promise.all(users.map((user) => runCli(['user', 'add', user, '--role', 'Clerk', '--password-stdin'], { env, input: `${user}-password-1\n` })));
    expect(runs.map((r) => [r.code, r.stderr.trim()])).to.deep.equal(users.map(() => [0, '']));
    const listed = await runCli(['user', 'list'], { env });
    expect(listed.code, listed.stderr).to.equal(0);
    for (const user of users) expect(listed.stdout).to.contain(user);
  });
});
