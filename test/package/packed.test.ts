import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { type ServeProcess, childEnv, killChildren, projectRoot, runCli, startServe } from '../support/processes.js';
import { stackLine } from '../support/cli-env.js';
import { type Ran, failure, installedVersion, localSqlitePrebuild, npmEnv, packRestlayer, requireRegistry, run, stepTimer } from '../support/packed-project.js';
import { requireServices } from '../support/hooks.js';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';
import { mint, newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * restlayer as a dependency: the project is packed as `npm run pack` packs it for publishing, installed from the tarball
 * into a new project (test/package/consumer: one service module with its migration and table, one route file, a
 * main.ts calling runCli, a client proxy and a test of its own), which is built with tsc against the package's
 * types and run as a real process. Needs the npm registry (the new project installs restlayer's dependencies and
 * TypeScript): without it the suite is skipped, except under CI=true, where that is a failure.
 */

const ISSUER = 'notes-issuer';
const AUDIENCE = 'notes-clients';

/** Every module `entry` loads at run time (type-only imports are gone from the build), and the packages among them. */
function runtimeGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (fileName.startsWith('.')) visit(join(dirname(file), fileName));
      else packages.add(fileName);
    }
  };
  visit(entry);
  return { files: [...files], packages: [...packages] };
}

/** The files below `dir`, without the dependencies npm may nest in a node_modules of its own. */
function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).filter((name) => name !== 'node_modules').flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full, base) : [relative(base, full).split('\\').join('/')];
  });
}

describeOneStore('restlayer as a dependency: packed, installed in a new project, built and run', WHY_ONE_STORE.packed, function () {
  // npm install and two compilations on a small machine shared with other work.
  this.timeout(20 * 60_000);

  let work: string;
  let app: string;
  let main: string;
  let packedFiles: string[];
  let env: NodeJS.ProcessEnv;
  let key: string;
  let server: ServeProcess | undefined;
  /** How long the steps took, printed after the suite (for the record; nothing asserts on it). */
  const took: string[] = [];
  const timed = stepTimer(took);

  before(async function () {
    work = makeTempDir('restlayer-package-');
    await requireRegistry('restlayer as a dependency', work, () => this.skip());
    const info = await timed('pack', () => packRestlayer(work));
    packedFiles = info.files;

    app = join(work, 'notes');
    cpSync(join(projectRoot, 'test', 'package', 'consumer'), app, { recursive: true });
    const sqlite = await localSqlitePrebuild(work);
    writeFiles(app, {
      'package.json': {
        name: 'notes',
        version: '1.0.0',
        private: true,
        type: 'module',
        bin: { notes: 'dist/main.js' },
        scripts: { build: 'tsc -p tsconfig.json' },
        // PostgreSQL and Redis are optional peers of restlayer: a project on them installs their clients itself.
        dependencies: { restlayer: `file:../${info.filename}`, pg: installedVersion('pg'), ioredis: installedVersion('ioredis') },
        devDependencies: Object.fromEntries(['typescript', '@types/node', 'mocha', '@types/mocha', 'chai', '@types/chai'].map((name) => [name, installedVersion(name)])),
        allowScripts: { 'better-sqlite3': true },
        // Test only: the version whose build the project already has (see localSqlitePrebuild).
        ...(sqlite ? { overrides: { 'better-sqlite3': sqlite.version } } : {}),
      },
    });
    const install = await timed(`npm install${sqlite ? '' : ' (compiling better-sqlite3)'}`, () =>
      run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, env: npmEnv(sqlite?.env), timeoutMs: 15 * 60_000 }));
    if (install.code !== 0) throw new Error(failure('npm install of the tarball', install));
    const build = await timed('tsc', () =>
      run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: app, env: npmEnv(), timeoutMs: 5 * 60_000 }));
    if (build.code !== 0) throw new Error(failure('tsc in the new project', build));
    main = join(app, 'dist', 'main.js');

    key = newKey();
    env = childEnv({
      NODE_ENV: 'production',
      Authentication__Schemes__Bearer__SigningKeys__0__Issuer: ISSUER,
      Authentication__Schemes__Bearer__SigningKeys__0__Value: key,
      Authentication__Schemes__Bearer__ValidIssuer: ISSUER,
      Authentication__Schemes__Bearer__ValidAudience: AUDIENCE,
      Authentication__Cookie__Keys: newKey(),
      Authentication__PasswordHashCost: '10',
      Storage__Sqlite__Path: join(work, 'notes.db'),
      // Two servers of this suite run at once; production's metrics port (9464) would be taken by the first.
      Metrics__Port: '0',
    });
  });

  after(async () => {
    if (took.length) console.log(`      (${took.join(', ')})`);
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await killChildren();
    removeTempDirs();
  });

  it('the tarball holds the layer bundled: its entry points, their shared chunks and declarations, the CLI, the configuration, the README and docs/; not the sample application, the browser app, sources, tests or source maps', () => {
    for (const file of [
      'package.json', 'README.md', 'docs/protocol.md', 'config/default.json', 'dist/bin/restlayer.js', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/client/index.js',
      'dist/lib/client/index.d.ts', 'dist/lib/testing/index.js', 'dist/lib/testing/index.d.ts', 'dist/lib/telemetry/register.js', 'dist/lib/layer-routes/health/live.js',
      'dist/lib/storage/sqlite-reader-process.js', 'dist/lib/storage/sqlite-reader-thread.js', 'dist/lib/cli/dev-checker.js',
    ]) expect(packedFiles, file).to.include(file);
    // Code is in the entry points (the exports, the bin, what the layer loads by path) and the chunks they share.
    const code = packedFiles.filter((f) => f.endsWith('.js'));
    expect(code.filter((f) => !/^dist\/(bin\/restlayer|lib\/(index|client\/index|testing\/index|telemetry\/register|storage\/sqlite-reader-(process|thread)|cli\/dev-checker|layer-routes\/.+|chunks\/.+))\.js$/.test(f)),
      'modules that are neither an entry point nor a shared chunk').to.deep.equal([]);
    // Issue 36: the package held 541 files before it was bundled and lost the sample; about half of that now (270 then;
    // each page of docs/ and each module's declarations since add one: tenancy added 4).
    expect(packedFiles.length).to.be.at.most(280);
    const allowed = /^(package\.json|README\.md|docs\/[^/]+\.md|config\/[^/]+\.json|dist\/(lib|bin)\/.+)$/;
    expect(packedFiles.filter((f) => !allowed.test(f)), 'outside the allowed folders').to.deep.equal([]);
    expect(packedFiles.filter((f) => f.endsWith('.map')), 'source maps').to.deep.equal([]);
    expect(packedFiles.filter((f) => /\.ts$/.test(f) && !/\.d\.ts$/.test(f)), 'TypeScript sources').to.deep.equal([]);
    expect(packedFiles.filter((f) => /^dist\/bin\/.*\.d\.ts$/.test(f)), 'declarations of the CLI script').to.deep.equal([]);
  });

  it("installs none of the optional peers (PostgreSQL, Redis, tracing, docs page, web app, pretty logs) unless the project asks for them", () => {
    const restlayer = JSON.parse(readFileSync(join(app, 'node_modules', 'restlayer', 'package.json'), 'utf8')) as { peerDependenciesMeta: Record<string, { optional: boolean }> };
    const optional = Object.keys(restlayer.peerDependenciesMeta);
    expect(optional).to.include.members(['pg', 'ioredis', '@opentelemetry/sdk-trace-node', 'swagger-ui-dist', 'pino-pretty']);
    // This project uses PostgreSQL and Redis (its generated tests run on both): those two are its own dependencies.
    // @opentelemetry/api is small and comes anyway: prom-client (the metrics) depends on it. Tracing itself does not.
    const installed = optional.filter((name) => name !== '@opentelemetry/api' && existsSync(join(app, 'node_modules', name, 'package.json')));
    expect(installed.sort()).to.deep.equal(['ioredis', 'pg']);
  });

  it('installs as packed: prepare does not run, nothing is built or added inside the installed package', () => {
    const installed = join(app, 'node_modules', 'restlayer');
    expect(listFiles(installed).sort()).to.deep.equal([...packedFiles].sort());
  });

  it('a misuse of the public types is a compile error in the new project (the types conditions resolve)', async () => {
    writeFiles(app, {
      'misuse/misuse.ts': [
        "import { route } from 'restlayer';",
        "import { createClient } from 'restlayer/client';",
        "import { startTestServer } from 'restlayer/testing';",
        "export const GET = route({ summary: 42, handle: async () => 'not an Output' });",
        "export const client = createClient({ BaseAddress: 7 });",
        'export const server = startTestServer({});',
        '',
      ].join('\n'),
    });
    const tsc = await run(process.execPath, [
      join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '--strict', '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
      // The full build above checked every declaration file already.
      '--target', 'ES2022', '--types', 'node', '--skipLibCheck', 'misuse/misuse.ts',
    ], { cwd: app, env: npmEnv(), timeoutMs: 5 * 60_000 });
    expect(tsc.code, tsc.stdout).to.not.equal(0);
    const errorLines = [...tsc.stdout.matchAll(/misuse\/misuse\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]));
    expect([...new Set(errorLines)], tsc.stdout).to.deep.equal([4, 5, 6]);
  });

  it("serve: its own route answers the envelope to a bearer token minted with the configured key, issuer and audience, beside the layer's routes", async () => {
    server = await startServe(['--port', '0', '--host', '127.0.0.1'], { cli: main, env, cwd: app, timeoutMs: 60_000 });
    const call = async (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => {
      const res = await fetch(server!.url + path, {
        method: init.method ?? 'GET',
        headers: { ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}), ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return { status: res.status, body: (await res.json()) as { result?: unknown; messages: { code: string; property?: string }[] } };
    };
    const token = mint({ key, issuer: ISSUER, audience: AUDIENCE, claims: { sub: 'minted', name: 'Minted User' } });

    expect(await call('/note', { token })).to.deep.equal({ status: 200, body: { result: [], messages: [] } });
    expect(await call('/note', { method: 'POST', token, body: { Text: 'first' } }))
      .to.deep.equal({ status: 200, body: { result: { noteId: 1, text: 'first', author: 'minted' }, messages: [] } });
    expect(await call('/note', { token })).to.deep.equal({ status: 200, body: { result: [{ noteId: 1, text: 'first', author: 'minted' }], messages: [] } });

    const invalid = await call('/note', { method: 'POST', token, body: { text: '' } });
    expect([invalid.status, invalid.body.messages.map((m) => m.property)]).to.deep.equal([400, ['text']]);
    const anonymous = await call('/note');
    expect([anonymous.status, anonymous.body.messages.map((m) => m.code)]).to.deep.equal([401, ['Security_Unauthenticated']]);
    const otherKey = await call('/note', { token: mint({ key: newKey(), issuer: ISSUER, audience: AUDIENCE }) });
    expect([otherKey.status, otherKey.body.messages.map((m) => m.code)]).to.deep.equal([401, ['Security_TokenInvalid']]);
    expect(await call('/health/live')).to.deep.equal({ status: 200, body: { result: { status: 'Healthy' }, messages: [] } });
  });

  it('user add through its own CLI; the user logs in and writes a note through restlayer/client and its proxy', async () => {
    expect(server, 'the server of the previous test').to.not.equal(undefined);
    const password = 'a password for the notes app';
    const added = await runCli(['user', 'add', 'alice', '--role', 'Administrator', '--password-stdin'], { cli: main, env, cwd: app, input: password });
    expect([added.code, added.stdout], added.stderr).to.deep.equal([0, 'user alice created with roles Administrator\n']);

    // Its CLI reports errors under its own name.
    const usage = await runCli(['user', 'add', 'bob', '--role', 'Clerk'], { cli: main, env, cwd: app });
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.match(/^notes: give exactly one of --password-stdin and --password\n$/).and.not.match(stackLine);

    const client = await run(process.execPath, [join(app, 'dist', 'check-client.js'), server!.url, 'alice', password, 'via the client'], { cwd: app, env, timeoutMs: 60_000 });
    expect(client.code, failure('check-client', client)).to.equal(0);
    const { created, listed } = JSON.parse(client.stdout) as { created: { text: string; author: string }; listed: { text: string }[] };
    expect(created).to.include({ text: 'via the client', author: 'alice' });
    expect(listed.map((n) => n.text)).to.deep.equal(['first', 'via the client']);
  });

  it('serve --workers 2: every worker runs the application (each re-enters its main.js and runCli)', async () => {
    const pool = await startServe(['--workers', '2', '--port', '0', '--host', '127.0.0.1'], { cli: main, env: { ...env, Log__Level: 'info' }, cwd: app, timeoutMs: 60_000 });
    try {
      await until(() => (pool.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'two workers serving', 60_000);
      const token = mint({ key, issuer: ISSUER, audience: AUDIENCE, claims: { sub: 'minted' } });
      const replies = await Promise.all(Array.from({ length: 8 }, () => fetch(`${pool.url}/note`, { headers: { Authorization: `Bearer ${token}` } })));
      expect(replies.map((r) => r.status)).to.deep.equal(Array(8).fill(200));
      const listening = pool.stderr().split('\n').filter((l) => l.includes('restlayer listening on')).map((l) => JSON.parse(l) as { pid: number });
      const pids = new Set(listening.map((l) => l.pid));
      expect(pids.size).to.equal(2);
    } finally {
      pool.child.kill('SIGTERM');
      await pool.exited;
    }
  });

  it("restlayer/testing starts the application on an ephemeral port over its own SQLite file, for the application's own tests", async () => {
    const test = await run(process.execPath, [join(app, 'dist', 'check-testing.js')], { cwd: app, env: childEnv(), timeoutMs: 60_000 });
    expect(test.code, failure('check-testing', test)).to.equal(0);
    expect(test.stdout).to.match(/^restlayer\/testing: ok \(http:\/\/127\.0\.0\.1:\d+\)\n$/);
  });

  describe('restlayer new service in the new project: every field type and option, built strictly, served, its tests on both stores', () => {
    const fields = [
      'number:text:required:max=20:sortable:filterable:unique', 'customer:text:required:max=100:filterable', 'amount:decimal:required:sortable:filterable',
      'quantity:integer:sortable:filterable', 'dueDate:date:sortable:filterable', 'paid:boolean:required:filterable:sortable',
      'currencyId:lookup=currency:required:filterable', 'note:text', 'deposit:money:sortable:filterable',
    ];
    /** A master-detail document (issue 23): an order and its lines, money on both, the order totalling its lines' amounts. */
    const documentArgs = [
      'new', 'service', 'order', '--field', 'reference:text:required:max=20:filterable', '--field', 'freight:money:required:sortable:filterable',
      '--child', 'line', '--child-field', 'line:description:text:required:max=40', '--child-field', 'line:amount:money:required',
      '--child-field', 'line:quantity:integer', '--child-field', 'line:gift:boolean', '--child-total', 'line:amount',
    ];
    let scaffolded: Ran;
    let documentScaffolded: Ran;
    let rebuilt: Ran;
    const mocha = (extra: Record<string, string>) => timed(`generated tests (${extra.RESTLAYER_TEST_STORAGE ?? 'sqlite'})`, () =>
      run(process.execPath, [join(app, 'node_modules', 'mocha', 'bin', 'mocha.js'), 'dist/test/**/*.test.js'], { cwd: app, env: npmEnv(extra), timeoutMs: 10 * 60_000 }));

    before(async function () {
      if (!app) this.skip();
      scaffolded = await timed('npx restlayer new service', () =>
        run('npx', ['--no-install', 'restlayer', 'new', 'service', 'invoice', ...fields.flatMap((f) => ['--field', f])], { cwd: app, env: npmEnv(), timeoutMs: 120_000 }));
      documentScaffolded = await timed('npx restlayer new service (master-detail)', () =>
        run('npx', ['--no-install', 'restlayer', ...documentArgs], { cwd: app, env: npmEnv(), timeoutMs: 120_000 }));
      // The project's own test of the unique field: 30 creates of one number at once.
      writeFiles(app, { 'src/test/invoice/invoice-race.test.ts': readFileSync(join(projectRoot, 'test', 'package', 'invoice-race.ts.txt'), 'utf8') });
      rebuilt = await timed('tsc with the new service', () =>
        run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: app, env: npmEnv(), timeoutMs: 5 * 60_000 }));
    });

    it('writes the service under src/ importing only restlayer, restlayer/client and restlayer/testing, and registers it in src/app.ts', () => {
      expect(scaffolded.code, failure('restlayer new service', scaffolded)).to.equal(0);
      const files = listFiles(join(app, 'src')).filter((f) => /(^|\/)invoice\b/.test(f)).sort();
      expect(files).to.deep.equal([
        'routes/invoice/[_invoiceId].ts', 'routes/invoice/[_invoiceId]/history.ts', 'routes/invoice/index.ts', 'services/invoice/invoice-proxy.ts',
        'services/invoice/invoice.ts', 'services/invoice/migrations/0001-invoice.ts', 'services/invoice/migrations/index.ts', 'services/invoice/module.ts',
        'test/invoice/invoice-race.test.ts', 'test/invoice/invoice.drift.ts', 'test/invoice/invoice.test.ts',
      ]);
      for (const file of files) {
        const imports = [...readFileSync(join(app, 'src', file), 'utf8').matchAll(/ from '([^']+)'/g)].map((m) => m[1]);
        expect(imports.filter((i) => !/^(restlayer(\/client|\/testing)?|chai|\.\.?\/.+)$/.test(i)), file).to.deep.equal([]);
      }
      expect(readFileSync(join(app, 'src', 'app.ts'), 'utf8')).to.include("import { invoiceModule } from './services/invoice/module.js';")
        .and.include('export const modules = [noteModule, invoiceModule, orderModule] as const;');
    });

    it('writes a master-detail service: the order declared with its lines, their routes below it, and the shared suite', () => {
      expect(documentScaffolded.code, failure('restlayer new service (master-detail)', documentScaffolded)).to.equal(0);
      const files = listFiles(join(app, 'src')).filter((f) => /(^|\/)order\b/.test(f)).sort();
      expect(files).to.deep.equal([
        'routes/order/[_orderId].ts', 'routes/order/[_orderId]/history.ts', 'routes/order/[_orderId]/line/[_orderLineId].ts',
        'routes/order/[_orderId]/line/index.ts', 'routes/order/index.ts', 'services/order/migrations/0001-order.ts', 'services/order/migrations/index.ts',
        'services/order/module.ts', 'services/order/order-proxy.ts', 'services/order/order.ts', 'test/order/order.drift.ts', 'test/order/order.test.ts',
      ]);
      expect(readFileSync(join(app, 'src', 'services/order/order.ts'), 'utf8')).to.include("    amountTotal: field.money().sum('lines', 'amount'),\n").and.include('  children: { lines },\n');
      for (const file of files) {
        const imports = [...readFileSync(join(app, 'src', file), 'utf8').matchAll(/ from '([^']+)'/g)].map((m) => m[1]);
        expect(imports.filter((i) => !/^(restlayer(\/client|\/testing)?|chai|\.\.?\/.+)$/.test(i)), file).to.deep.equal([]);
      }
    });

    it('builds with tsc: strict, no skipLibCheck', () => {
      expect(JSON.parse(readFileSync(join(app, 'tsconfig.json'), 'utf8')).compilerOptions).to.include({ strict: true }).and.not.have.property('skipLibCheck');
      expect(rebuilt.code, failure('tsc with the generated service', rebuilt)).to.equal(0);
    });

    it('serves the generated list: criteria, a count and a cursor', async () => {
      expect(rebuilt.code).to.equal(0);
      const served = await startServe(['--port', '0', '--host', '127.0.0.1'], { cli: main, env: { ...env, Storage__Sqlite__Path: join(work, 'invoices.db') }, cwd: app, timeoutMs: 60_000 });
      try {
        const token = mint({ key, issuer: ISSUER, audience: AUDIENCE });
        const call = async (path: string, body?: unknown) => {
          const res = await fetch(served.url + path, {
            method: body ? 'POST' : 'GET', body: body ? JSON.stringify(body) : undefined,
            headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
          });
          return { status: res.status, body: (await res.json()) as { result: { invoiceId: number; number: string }[]; totalCount?: number; nextCursor?: string } };
        };
        for (let n = 1; n <= 7; n++) {
          const created = await call('/invoice', { number: `INV-${n}`, customer: n % 2 ? 'Acme' : 'Globex', amount: n * 10, paid: n > 4, currencyId: 1 + (n % 2) });
          expect(created.status, JSON.stringify(created.body)).to.equal(201);
        }
        const query = 'customer=Acme&amount=20&amount.operator=GE&sort[0].fieldName=amount&sort[0].sortDirection=Descending&take=2&getTotalCount=true&cursor=';
        const first = await call(`/invoice?${query}`);
        expect([first.status, first.body.totalCount, first.body.result.map((r) => r.number)]).to.deep.equal([200, 3, ['INV-7', 'INV-5']]);
        expect(first.body.nextCursor).to.be.a('string');
        const second = await call(`/invoice?${query}${encodeURIComponent(first.body.nextCursor!)}`);
        expect([second.status, second.body.result.map((r) => r.number), second.body.nextCursor]).to.deep.equal([200, ['INV-3'], undefined]);
      } finally {
        served.child.kill('SIGTERM');
        await served.exited;
      }
    });

    it('its generated tests and the 30-creates race pass on SQLite', async () => {
      const ran = await mocha({});
      expect(ran.code, failure('the generated tests on SQLite', ran)).to.equal(0);
      expect(ran.stdout).to.match(/\b([3-9]\d|\d{3}) passing/).and.include('30 concurrent creates of one number').and.not.match(/pending|failing/);
      expect(ran.stdout).to.include('child collection lines').and.include("amountTotal is the exact sum of the lines' amount, and 0 without lines");
    });

    it('its generated tests and the 30-creates race pass on PostgreSQL with Redis', async function () {
      await requireServices(this, ['postgres', 'redis'], 'the generated tests on PostgreSQL');
      const ran = await mocha({ RESTLAYER_TEST_STORAGE: 'postgres', RESTLAYER_TEST_REDIS: 'true' });
      expect(ran.code, failure('the generated tests on PostgreSQL', ran)).to.equal(0);
      expect(ran.stdout).to.match(/\b([3-9]\d|\d{3}) passing/).and.include('30 concurrent creates of one number').and.not.match(/pending|failing/);
      expect(ran.stdout).to.include('child collection lines').and.include("amountTotal is the exact sum of the lines' amount, and 0 without lines");
    });
  });

  it('restlayer dev serves the project\'s own application (its package.json bin) and serves an edit of its route file again', async () => {
    const devEnv = childEnv({
      NODE_ENV: 'development', PORT: '0', Metrics__Port: '0', Authentication__PasswordHashCost: '10', Storage__Sqlite__Path: join(work, 'dev.db'),
    });
    const dev = spawn(process.execPath, [join(app, 'node_modules', 'restlayer', 'dist', 'bin', 'restlayer.js'), 'dev'], {
      cwd: app, env: devEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    dev.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    dev.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const routeFile = join(app, 'src', 'routes', 'note', 'index.ts');
    const original = readFileSync(routeFile, 'utf8');
    const summary = async (url: string) => {
      try {
        const reply = await fetch(`${url}/openapi.json`);
        return ((await reply.json()) as { result: { paths: Record<string, { get?: { summary?: string } }> } }).result.paths['/note']?.get?.summary;
      } catch {
        return undefined; // between two servers
      }
    };
    try {
      await until(() => /restlayer dev: serving (http:\S+);/.test(out), `the dev loop's banner; output:\n${out}`, 120_000);
      const url = /restlayer dev: serving (http:\S+);/.exec(out)![1];
      // How to make a user names the project's own CLI, which is what serves it.
      expect(out).to.match(/make a user\s+echo '[^']+' \| npx notes user add alice --role Administrator --password-stdin/);
      // Without swagger-ui-dist (an optional peer this project did not install) the reference is the document.
      expect(out).to.include(`API reference   ${url}/openapi.json (a docs page at /docs needs swagger-ui-dist: npm install swagger-ui-dist)`);
      expect(await summary(url)).to.equal('List the notes.');
      // The type check beside it runs (its process is an entry of the package: it was missing, and the loop said only
      // that the check ended).
      expect(out).to.not.match(/Cannot find module|the type check ended/);
      writeFileSync(routeFile, original.replace("summary: 'List the notes.'", "summary: 'List every note.'"));
      await until(async () => (await summary(url)) === 'List every note.', `the edit to be served; output:\n${out}`, 60_000, 100);
    } finally {
      writeFileSync(routeFile, original);
      try {
        process.kill(-dev.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
      await new Promise((resolve) => (dev.exitCode === null ? dev.once('close', resolve) : resolve(undefined)));
    }
  });

  it('restlayer/client loads only its own modules at run time: no node: module, no server package (browser-safe)', () => {
    const installed = join(app, 'node_modules', 'restlayer');
    const exportsMap = (JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> }).exports;
    const graph = runtimeGraph(join(installed, exportsMap['./client'].default));
    // The walk reaches the client's code (bundled: its entry and the chunks it imports), not only an index.
    expect(graph.files.some((f) => /\bclass RestClient\b|\bRestClient = class\b/.test(readFileSync(f, 'utf8'))), graph.files.join('\n')).to.equal(true);
    expect(graph.files.every((f) => relative(installed, f).startsWith('dist/lib/')), graph.files.join('\n')).to.equal(true);
    expect(graph.packages.filter(isBuiltin), 'built-in modules').to.deep.equal([]);
    expect(graph.packages, 'packages').to.deep.equal([]);
  });
});
