import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import type { Application } from 'restlayer';
import { type TestServer, expectError, expectOk, startTestServer } from 'restlayer/testing';
import { type CliResult, childEnv, projectRoot, runCli } from '../support/processes.js';
import { WHY_ONE_STORE, describeOneStore, describeStores } from '../support/stores.js';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';

/**
 * `restlayer migration make` in a project of its own (restlayer linked as its dependency): a service the scaffold
 * wrote, a field added to its declaration, the migration the command writes for it, and that migration run by a real
 * server on the run's store, where the new field works over HTTP. Then a field removed: withheld without --allow-drop,
 * dropped with it. Then a multi-word action declared: its route file (its kebab-case path) and proxy entry written.
 */
describeStores('restlayer migration make', function () {
  this.timeout(180_000);
  let dir: string;
  const tsc = () => execFileSync(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8', timeout: 150_000 });
  /** The project's own CLI (its main.js calls runCli with its application). */
  const make = (...args: string[]): Promise<CliResult> => runCli(['migration', 'make', ...args], { cli: join(dir, 'dist/main.js'), cwd: dir, env: childEnv(), timeoutMs: 60_000 });
  const migrations = () => readdirSync(join(dir, 'src/services/note/migrations')).sort();
  const declaration = () => join(dir, 'src/services/note/note.ts');
  const edit = (from: string, to: string) => {
    const text = readFileSync(declaration(), 'utf8');
    expect(text).to.include(from);
    writeFileSync(declaration(), text.replace(from, to));
  };
  let builds = 0;
  /**
   * A server of the project's application as built now, on a fresh store of the run's kind: the build is copied first,
   * as this process keeps every module it imported (an earlier build's declaration among them).
   */
  const serve = async (): Promise<TestServer> => {
    const build = join(dir, `build-${++builds}`);
    cpSync(join(dir, 'dist'), build, { recursive: true });
    const { application } = (await import(pathToFileURL(join(build, 'app.js')).href)) as { application: Application };
    return startTestServer({ application });
  };

  before(async () => {
    dir = makeTempDir('restlayer-migration-make-');
    writeFiles(dir, {
      'package.json': { name: 'notes', type: 'module', private: true },
      'tsconfig.json': {
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'dist', rootDir: 'src', skipLibCheck: true, types: ['node'] },
        // The generated test calls the shared suite of restlayer/testing; this test runs the service itself.
        include: ['src'], exclude: ['src/test'],
      },
      'src/app.ts': [
        "import { fileURLToPath } from 'node:url';",
        "import type { Application } from 'restlayer';",
        '',
        'export const modules = [] as const;',
        '',
        "export const application: Application = { modules, routesDir: fileURLToPath(new URL('./routes/', import.meta.url)) };",
        '',
      ].join('\n'),
      'src/main.ts': "import { runCli } from 'restlayer';\nimport { application } from './app.js';\n\nawait runCli(application, { name: 'notes' });\n",
    });
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(projectRoot, join(dir, 'node_modules/restlayer'), 'dir');
    symlinkSync(join(projectRoot, 'node_modules/@types'), join(dir, 'node_modules/@types'), 'dir');
    const scaffold = await runCli(['new', 'service', 'note', '--field', 'title:text:required:max=80:sortable:filterable'], { cwd: dir, timeoutMs: 60_000 });
    expect(scaffold.code, scaffold.stderr).to.equal(0);
    tsc();
  });
  after(() => removeTempDirs());

  it('says there is nothing to do for a service as the scaffold wrote it, and writes nothing', async () => {
    const before = migrations();
    const run = await make();
    expect([run.code, run.stderr]).to.deep.equal([0, '']);
    expect(run.stdout).to.match(/^nothing to do: /);
    expect(migrations()).to.deep.equal(before);
  });

  it('writes the next migration for fields added to the declaration; a server runs it and serves the fields', async () => {
    edit("    title: field.text({ max: 80 }).required().sortable().filter().contains(),\n", [
      "    title: field.text({ max: 80 }).required().sortable().filter().contains(),",
      '    priority: field.integer().sortable().filter(),',
      '    code: field.text({ max: 12 }).unique({ ignoreCase: true }),',
      '',
    ].join('\n'));
    tsc();
    const name = '0002-note-priority-code';
    const checked = await make('--check');
    expect([checked.code, checked.stdout.split('\n')[0]]).to.deep.equal([1, `would write src/services/note/migrations/${name}.ts (module note):`]);
    expect(migrations()).to.deep.equal(['0001-note.ts', 'index.ts']);
    const run = await make();
    expect([run.code, run.stderr]).to.deep.equal([0, '']);
    expect(migrations()).to.deep.equal(['0001-note.ts', `${name}.ts`, 'index.ts']);
    expect(run.stdout).to.include(`wrote src/services/note/migrations/${name}.ts (module note):`);
    const text = readFileSync(join(dir, `src/services/note/migrations/${name}.ts`), 'utf8');
    expect(text).to.include(".addColumn('priority', 'integer')").and.include("createListIndex('ix_note_priority', 'priority')")
      .and.include('create unique index ux_note_code on note (lower(code))').and.not.include('DROPS');
    expect(readFileSync(join(dir, 'src/services/note/migrations/index.ts'), 'utf8')).to.include(`'${name}': m0002(dialect),`);
    tsc();
    // The scratch database ran it: the schema now has what the declaration needs.
    expect((await make()).stdout).to.match(/^nothing to do: /);

    const server = await serve();
    try {
      const created = expectOk(await server.call('/note', { method: 'POST', body: { title: 'First', priority: 3, code: 'ab-1' } }), 201).result as { noteId: number };
      expectOk(await server.call('/note', { method: 'POST', body: { title: 'Second', priority: 1 } }), 201);
      expect(expectOk(await server.call(`/note/${created.noteId}`)).result).to.include({ title: 'First', priority: 3, code: 'ab-1' });
      const sorted = expectOk(await server.call('/note?sort[0].fieldName=priority')).result as { title: string }[];
      expect(sorted.map((n) => n.title)).to.deep.equal(['Second', 'First']);
      const filtered = expectOk(await server.call('/note?priority=2&priority.operator=GE')).result as { title: string }[];
      expect(filtered.map((n) => n.title)).to.deep.equal(['First']);
      expectError(await server.call('/note', { method: 'POST', body: { title: 'Third', code: 'AB-1' } }), 409, 'Entity_Duplicate', 'code');
    } finally {
      await server.stop();
    }
  });

  it('withholds the drop of a removed field without --allow-drop, and writes it, said in the file, with the flag', async () => {
    edit('    priority: field.integer().sortable().filter(),\n', '');
    tsc();
    const before = migrations();
    const withheld = await make();
    expect(withheld.code).to.equal(0);
    expect(withheld.stdout).to.match(/^nothing written: /).and.include('not changed without --allow-drop: note.priority');
    expect(migrations()).to.deep.equal(before);
    const dropped = await make('--allow-drop');
    expect([dropped.code, dropped.stderr]).to.deep.equal([0, '']);
    const file = join(dir, 'src/services/note/migrations/0003-note-drop.ts');
    expect(existsSync(file), dropped.stdout).to.equal(true);
    expect(readFileSync(file, 'utf8')).to.include('It DROPS data (made with --allow-drop): note.priority');
    tsc();
    expect((await make()).stdout).to.match(/^nothing to do: /);
    const server = await serve();
    try {
      expectOk(await server.call('/note', { method: 'POST', body: { title: 'Fourth', code: 'x' } }), 201);
      expectError(await server.call('/note?sort[0].fieldName=priority'), 400, 'Input_InvalidValue', 'sort[0].fieldName');
    } finally {
      await server.stop();
    }
  });

  it('writes the route file of a multi-word action declared later (markDone: mark-done.ts) and adds markDone to the proxy; a server serves it', async () => {
    edit("import { field, resource } from 'restlayer';", "import { action, field, resource } from 'restlayer';");
    edit('  // Record scopes, rules', "  actions: { markDone: action({ run({ after }) { after.title = 'done'; } }) },\n  // Record scopes, rules");
    tsc();
    const file = 'src/routes/note/[_noteId]/mark-done.ts';
    const run = await make();
    expect([run.code, run.stderr]).to.deep.equal([0, '']);
    expect(run.stdout).to.match(/^nothing to do: /).and.include(`wrote ${file}: the route file of a path the declaration serves`)
      .and.include('added actions.markDone to the address in src/services/note/note-proxy.ts');
    expect(readFileSync(join(dir, file), 'utf8')).to.include('export const { POST } = note.routes.markDone;');
    expect(readFileSync(join(dir, 'src/services/note/note-proxy.ts'), 'utf8')).to.include('actions: { markDone: true }');
    tsc();
    expect((await make('--check')).code).to.equal(0);
    const server = await serve();
    try {
      const { noteId } = expectOk(await server.call('/note', { method: 'POST', body: { title: 'Fifth' } }), 201).result as { noteId: number };
      expect(expectOk(await server.call(`/note/${noteId}/mark-done`, { method: 'POST', body: {} })).result).to.include({ revisionNumber: 2 });
      expect(expectOk(await server.call(`/note/${noteId}`)).result).to.include({ title: 'done' });
      const [entry] = expectOk(await server.call(`/note/${noteId}/history`)).result as { operation: string }[];
      expect(entry.operation).to.equal('mark-done');
    } finally {
      await server.stop();
    }
  });
});

describeOneStore("restlayer migration make on this project's sample", WHY_ONE_STORE.cli, function () {
  this.timeout(60_000);

  it("finds the sample's declarations in step with its hand-written migrations (--check: nothing written, exit 0)", async () => {
    const run = await runCli(['migration', 'make', '--check', '--json'], { timeoutMs: 50_000 });
    expect([run.code, run.stderr]).to.deep.equal([0, '']);
    expect(JSON.parse(run.stdout)).to.deep.equal({ migrations: [], withheld: [], routes: [], routesByHand: [], proxies: [], written: false });
  });
});
