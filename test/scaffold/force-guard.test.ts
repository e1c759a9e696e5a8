import { expect } from 'chai';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type ServiceModule, loadConfig, openStorage, serviceModule } from 'restlayer';
import type { TestDatabase } from 'restlayer/testing';
import { expectCliFailure } from '../support/cli-env.js';
import { childEnv, killChildren, runCli } from '../support/processes.js';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';
import { createTestDatabase } from '../support/test-stores.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** The module the scaffold writes for `widget`, as far as the database sees it: its name and its first migration. */
const widgetModule: ServiceModule = serviceModule({
  name: 'widget',
  migrations: () => ({
    '0001-widget': {
      async up(db) {
        await db.schema.createTable('widget').addColumn('widget_id', 'integer', (c) => c.primaryKey()).addColumn('title', 'text').execute();
      },
    },
  }),
  create: () => ({}),
});

/** Runs `widget`'s migration on the store `env` configures, as the project's server would at its next start. */
async function runWidgetMigration(cwd: string, env: NodeJS.ProcessEnv) {
  const { config } = loadConfig({ env, overrides: { Storage: { SampleData: false } } });
  if (config.Storage.Provider === 'sqlite') config.Storage.Sqlite.Path = join(cwd, config.Storage.Sqlite.Path);
  await (await openStorage(config, [widgetModule])).close();
}

describeOneStore('restlayer new service: never writes a new 0001 over one the development database ran (issue 42)', WHY_ONE_STORE.scaffold, function () {
  this.timeout(120_000);
  const databases: TestDatabase[] = [];
  after(async () => {
    await killChildren();
    await Promise.all(databases.map((d) => d.drop()));
    removeTempDirs();
  });

  const project = () => writeFiles(makeTempDir('restlayer-force-guard-'), { 'services/index.ts': 'export const modules = [] as const;\n' });
  const scaffold = (cwd: string, env: NodeJS.ProcessEnv, ...more: string[]) =>
    runCli(['new', 'service', 'widget', '--field', 'title:text', ...more], { cwd, env, timeoutMs: 60_000 });
  const migrations = (cwd: string) => readFileSync(join(cwd, 'services/widget/migrations/0001-widget.ts'), 'utf8');

  it('SQLite: --force is refused, one line naming the database, the migration and the way out; nothing is written', async () => {
    const dir = project();
    const env = childEnv();
    expect((await scaffold(dir, env)).code).to.equal(0);
    const written = migrations(dir);
    // Before the server ran it, --force rewrites freely.
    const early = await scaffold(dir, env, '--field', 'note:text', '--force');
    expect(early.code, early.stderr).to.equal(0);
    expect(migrations(dir)).to.not.equal(written);
    expect(migrations(dir)).to.include("'note'");

    await runWidgetMigration(dir, env);
    const before = migrations(dir);
    const refused = await scaffold(dir, env, '--field', 'reference:text', '--force');
    expectCliFailure(refused, 1, 'data/restlayer.db (SQLite) has run the migrations of widget (0001-widget): writing the service again would give it a new 0001 '
      + 'that never runs, and its routes would fail against the table the old one made. Start the development database over first (restlayer db reset), '
      + 'or change the schema with a new migration instead');
    expect(migrations(dir)).to.equal(before);

    // Started over (what db reset does to the file): the rewrite is allowed again.
    rmSync(join(dir, 'data', 'restlayer.db'));
    const after = await scaffold(dir, env, '--field', 'reference:text', '--force');
    expect(after.code, after.stderr).to.equal(0);
    expect(migrations(dir)).to.include("'reference'");
  });

  it('PostgreSQL: the same, read from the configured database', async () => {
    const database = await createTestDatabase(false);
    databases.push(database);
    const dir = project();
    const env = childEnv({ Storage__Provider: 'postgres', Storage__Postgres__Url: database.url });
    expect((await scaffold(dir, env)).code).to.equal(0);
    await runWidgetMigration(dir, env);
    const refused = await scaffold(dir, env, '--force');
    expectCliFailure(refused, 1, 'has run the migrations of widget (0001-widget)');
    expect(refused.stderr).to.match(/^restlayer: database \S+ on \S+ \(PostgreSQL\) has run/);
  });
});
