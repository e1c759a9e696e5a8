import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type ServeProcess, childEnv, killChildren, projectRoot, runCli, startServe } from '../support/processes.js';
import { type Ran, failure, initProject, npmEnv, npmIn, packedCli, requireRegistry, run, stepTimer, withNewDatabase } from '../support/packed-project.js';
import { requireServices } from '../support/hooks.js';
import { codeBlocks } from '../support/markdown.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * `restlayer init my-api` (issue 42): a project of one's own, made by the CLI of the package as it is published (the
 * tarball `npm run pack` makes, its bundle run over this repository's node_modules), installed from that tarball,
 * then tested, built and served as its README says: its test passes on SQLite right away and on PostgreSQL with one
 * setting; its server answers its example resource to a user its own CLI made. How long init → install → a passing
 * test takes is printed after the suite (the target: 3 minutes on the 2-core machine; nothing asserts on time).
 * Needs the npm registry: without it the suite is skipped, except under CI=true.
 */

const PASSWORD = 'correct horse battery staple';

describeOneStore('restlayer init: a new project of one\'s own, from the packed package', WHY_ONE_STORE.packed, function () {
  // npm install and compilations on a small machine shared with other work.
  this.timeout(20 * 60_000);

  let work: string;
  let app: string;
  let made: Ran;
  let installed: Ran;
  let tested: Ran;
  const took: string[] = [];
  const timed = stepTimer(took);
  const npm = (args: string[]) => npmIn(app)(args);

  before(async function () {
    work = makeTempDir('restlayer-starter-');
    await requireRegistry('restlayer init', work, () => this.skip());
    const packed = await packedCli(work, timed);
    const started = performance.now();
    ({ app, made, installed } = await initProject(work, 'my-api', packed, timed));
    tested = await timed('npm test', () => npm(['test']));
    took.push(`init to a passing test ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });

  after(async () => {
    if (took.length) console.log(`      (${took.join(', ')})`);
    await killChildren();
    removeTempDirs();
  });

  it('writes a project of its own: scripts, tsconfig, the application, a config folder, one resource declared with its migration, one-line route files and a test, a README', () => {
    expect(made.stdout).to.include('restlayer init: made my-api in my-api').and.include('cd my-api').and.include('npm install').and.include('npm run dev');
    const files = readdirSync(app, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !/(^|\/)(node_modules|dist)(\/|$)/.test(join(e.parentPath, e.name).slice(app.length + 1)))
      .map((e) => join(e.parentPath, e.name).slice(app.length + 1)).filter((f) => f !== 'package-lock.json').sort();
    expect(files).to.deep.equal([
      '.gitignore', '.mocharc.json', 'README.md', 'config/settings.json', 'package.json', 'src/app.ts', 'src/main.ts', 'src/routes/task/[_taskId].ts',
      'src/routes/task/[_taskId]/history.ts', 'src/routes/task/index.ts', 'src/services/task/migrations/0001-task.ts',
      'src/services/task/migrations/index.ts', 'src/services/task/module.ts',
      'src/services/task/task.ts', 'src/test/task/task.test.ts', 'tsconfig.json',
    ]);
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { name: string; bin: Record<string, string>; scripts: Record<string, string> };
    expect(manifest.name).to.equal('my-api');
    expect(manifest.bin).to.deep.equal({ 'my-api': 'dist/main.js' });
    expect(manifest.scripts).to.include.keys('build', 'start', 'dev', 'test', 'test:postgres');
    // npm runs scripts with cmd on Windows: no variable set in front of a command, no single quotes around a pattern.
    for (const [script, line] of Object.entries(manifest.scripts)) expect(line, script).to.not.match(/(^|&&\s*)[A-Za-z_][A-Za-z0-9_]*=|'/);
    for (const route of ['src/routes/task/index.ts', 'src/routes/task/[_taskId].ts', 'src/routes/task/[_taskId]/history.ts']) {
      expect(readFileSync(join(app, route), 'utf8').trim().split('\n').filter(Boolean), route).to.have.length(2);
    }
  });

  it("installs without a warning: the one install script it needs (better-sqlite3's) is allowed", () => {
    expect(installed.stdout + installed.stderr).to.not.include('not yet covered by allowScripts');
  });

  it('refuses a folder that is not empty, and a name that cannot name a package, in one line each', async () => {
    const cli = join(work, 'package', 'dist', 'bin', 'restlayer.js');
    const again = await run(process.execPath, [cli, 'init', 'my-api'], { cwd: work, env: npmEnv(), timeoutMs: 60_000 });
    expect([again.code, again.stderr]).to.deep.equal([2, `restlayer: ${app} is not empty: name a new folder (restlayer init my-api)\n`]);
    const named = await run(process.execPath, [cli, 'init', 'My API'], { cwd: work, env: npmEnv(), timeoutMs: 60_000 });
    expect(named.code).to.equal(2);
    expect(named.stderr).to.equal("restlayer: 'My API' cannot name the project (its package and its CLI): use lower-case letters, digits and -, e.g. my-api\n");
    expect(existsSync(join(work, 'My API'))).to.equal(false);
  });

  it('npm test builds it and its test passes on SQLite', () => {
    expect(tested.code, failure('npm test', tested)).to.equal(0);
    expect(tested.stdout).to.include('tasks (sqlite)').and.match(/\b3 passing/).and.not.match(/failing|pending/);
  });

  it('its test passes on PostgreSQL with one setting (npm run test:postgres)', async function () {
    await requireServices(this, ['postgres'], 'the started project\'s test on PostgreSQL');
    const ran = await timed('npm run test:postgres', () => npm(['run', 'test:postgres']));
    expect(ran.code, failure('npm run test:postgres', ran)).to.equal(0);
    expect(ran.stdout).to.include('tasks (postgres)').and.match(/\b3 passing/).and.not.match(/failing|pending/);
  });

  /** npm start's server (the build npm test made), a user its CLI made, and a task written and listed through it. */
  async function serveAndWriteATask(env: NodeJS.ProcessEnv): Promise<void> {
    const main = join(app, 'dist', 'main.js');
    const server: ServeProcess = await startServe(['--port', '0'], { cli: main, env, cwd: app, timeoutMs: 60_000 });
    try {
      const added = await runCli(['user', 'add', 'alice', '--role', 'Administrator', '--password-stdin'], { cli: main, env, cwd: app, input: PASSWORD, timeoutMs: 60_000 });
      expect([added.code, added.stdout], added.stderr).to.deep.equal([0, 'user alice created with roles Administrator\n']);
      const login = await fetch(`${server.url}/auth/jwt`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userName: 'alice', password: PASSWORD }) });
      expect(login.status).to.equal(200);
      const { accessToken } = ((await login.json()) as { result: { accessToken: string } }).result;
      const headers = { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' };
      const created = await fetch(`${server.url}/task`, { method: 'POST', headers, body: JSON.stringify({ title: 'Try restlayer' }) });
      expect(created.status, await created.clone().text()).to.equal(201);
      const listed = (await (await fetch(`${server.url}/task?done=false&getTotalCount=true`, { headers })).json()) as { result: { title: string }[]; totalCount: number };
      expect([listed.totalCount, listed.result.map((t) => t.title)]).to.deep.equal([1, ['Try restlayer']]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }

  it('serves on SQLite at the path config/settings.json names, to a user its own CLI made', async () => {
    expect(tested.code).to.equal(0);
    await serveAndWriteATask(childEnv({ NODE_ENV: undefined, Metrics__Port: '0', Authentication__PasswordHashCost: '10' }));
    expect(existsSync(join(app, 'data', 'my-api.db'))).to.equal(true);
  });

  it("takes a field as getting-started.md adds one: the declaration's line, then migration make, on the database that ran the first", async () => {
    expect(tested.code).to.equal(0);
    // The page's TypeScript block of "4. Add a field" into the declaration, then its command: build, migration make.
    const guide = readFileSync(join(projectRoot, 'docs', 'getting-started.md'), 'utf8');
    const step = guide.slice(guide.indexOf('## 4. Add a field'), guide.indexOf('## 5.'));
    const [fieldLine] = codeBlocks(step, 'ts').map((b) => b.code.trim());
    const declaration = join(app, 'src', 'services', 'task', 'task.ts');
    const dueDate = 'dueDate: field.date().sortable().filter(),';
    writeFileSync(declaration, readFileSync(declaration, 'utf8').replace(dueDate, `${dueDate}\n    ${fieldLine}`));
    const main = join(app, 'dist', 'main.js');
    const built = await npm(['run', 'build']);
    expect(built.code, failure('npm run build with the new field', built)).to.equal(0);
    const made = await runCli(['migration', 'make'], { cli: main, cwd: app, env: childEnv({ NODE_ENV: undefined }) });
    expect(made.code, made.stderr).to.equal(0);
    expect(readdirSync(join(app, 'src', 'services', 'task', 'migrations'))).to.include('0002-task-priority.ts');
    const rebuilt = await npm(['run', 'build']);
    expect(rebuilt.code, failure('npm run build with the new migration', rebuilt)).to.equal(0);

    const env = childEnv({ NODE_ENV: undefined, Metrics__Port: '0', Authentication__PasswordHashCost: '10' });
    const server = await startServe(['--port', '0'], { cli: main, env, cwd: app, timeoutMs: 60_000 });
    try {
      const login = await fetch(`${server.url}/auth/jwt`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userName: 'alice', password: PASSWORD }) });
      const { accessToken } = ((await login.json()) as { result: { accessToken: string } }).result;
      const headers = { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' };
      const created = await fetch(`${server.url}/task`, { method: 'POST', headers, body: JSON.stringify({ title: 'With a priority', priority: 2 }) });
      expect(created.status, await created.clone().text()).to.equal(201);
      const read = (await (await fetch(`${server.url}${created.headers.get('Location')}`, { headers })).json()) as { result: { priority?: number } };
      expect(read.result.priority).to.equal(2);
      const wrong = await fetch(`${server.url}/task`, { method: 'POST', headers, body: JSON.stringify({ title: 'Too urgent', priority: 9 }) });
      const answer = (await wrong.json()) as { messages: { property?: string }[] };
      expect([wrong.status, answer.messages.map((m) => m.property)]).to.deep.equal([400, ['priority']]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('serves on PostgreSQL with one setting (Storage__Provider=postgres; the database at the URL of config/settings.json, here a new one)', async function () {
    await requireServices(this, ['postgres'], 'the started project on PostgreSQL');
    expect(tested.code).to.equal(0);
    await withNewDatabase('starter', async (url) => {
      // The test's server stands in for the URL the settings name (127.0.0.1, user postgres, database my_api).
      const settings = JSON.parse(readFileSync(join(app, 'config', 'settings.json'), 'utf8')) as { Storage: { Postgres: { Url: string } } };
      expect(settings.Storage.Postgres.Url).to.equal('postgres://postgres@127.0.0.1:5432/my_api');
      await serveAndWriteATask(childEnv({
        NODE_ENV: undefined, Metrics__Port: '0', Authentication__PasswordHashCost: '10', Storage__Provider: 'postgres', Storage__Postgres__Url: url.href,
      }));
      // The task went to PostgreSQL.
      const inDatabase = new pg.Client({ connectionString: url.href });
      await inDatabase.connect();
      try {
        expect((await inDatabase.query<{ title: string }>('select title from task')).rows).to.deep.equal([{ title: 'Try restlayer' }]);
      } finally {
        await inDatabase.end();
      }
    });
  });
});
