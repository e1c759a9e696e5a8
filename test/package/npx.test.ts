import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/processes.js';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile('npm', args, { cwd, env, timeout: 120_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/**
 * Which of the project's lifecycle scripts npm runs, for `npm install`, `npm pack`, `npm start`, `npm run dev` and the
 * first `npx restlayer`: a copy of package.json whose builds only leave a mark (and their outputs, for the staleness
 * check), in a folder with a stub CLI. An install builds nothing (issue 42: the build took a third of `npm ci`);
 * serving builds what is missing or older than its sources. npx installs a project
 * whose own bin it is asked for into its cache as a link, running the link's `prepare`: a build there took ~20 s
 * and rewrote dist/ under a running server. Needs no registry (the copy has no dependencies).
 */
describe('npm lifecycle of the project: npm install, npm ci and npx restlayer build nothing, npm start and npm run dev build what is stale, npm pack builds (real npm)', function () {
  this.timeout(180_000);
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const mark = () => join(dir, 'built.txt');

  before(() => {
    dir = makeTempDir('restlayer-npx-');
    const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> } & Record<string, unknown>;
    delete pkg.dependencies;
    delete pkg.devDependencies;
    pkg.scripts.build = 'node -e "require(\'node:fs\').appendFileSync(\'built.txt\', \'built\\\\n\')"';
    // The two builds serving needs leave their marks and their outputs (what .ci/build-if-stale.mjs compares).
    pkg.scripts['build:server'] = 'node stub-build.mjs server dist/.tsbuildinfo';
    pkg.scripts['build:web'] = 'node stub-build.mjs web dist/web/index.html';
    writeFiles(dir, {
      'package.json': JSON.stringify(pkg, null, 2),
      'dist/bin/restlayer.js': '#!/usr/bin/env node\nconsole.log(`stub ${process.argv.slice(2).join(" ")}`);\n',
      'config/default.json': '{}',
      'stub-build.mjs': [
        "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';",
        "import { dirname } from 'node:path';",
        'const [what, output] = process.argv.slice(2);',
        "appendFileSync('built.txt', `${what}\\n`);",
        'mkdirSync(dirname(output), { recursive: true });',
        "writeFileSync(output, what);",
        '',
      ].join('\n'),
      'lib/index.ts': 'export {};\n',
      'web/src/main.ts': 'export {};\n',
      '.ci/build-if-stale.mjs': readFileSync(join(projectRoot, '.ci', 'build-if-stale.mjs'), 'utf8'),
    });
    // npm's own environment without what a surrounding `npm test` hands its scripts; a cache of this test alone.
    env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'));
    env.npm_config_cache = join(dir, '.npm-cache');
  });
  after(removeTempDirs);

  it('npm install builds nothing: serving or testing builds what it needs', async () => {
    const ran = await run(['install', '--offline', '--no-audit', '--no-fund'], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(existsSync(mark()), 'a build ran').to.equal(false);
  });

  it('npm ci builds nothing either', async () => {
    const ran = await run(['ci', '--offline', '--no-audit', '--no-fund'], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(existsSync(mark()), 'a build ran').to.equal(false);
  });

  it('npm start in a fresh clone builds the server and the browser app, then serves', async () => {
    const ran = await run(['start'], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(readFileSync(mark(), 'utf8')).to.equal('server\nweb\n');
    expect(ran.stderr).to.include('build-if-stale: npm run build:server (dist/.tsbuildinfo is missing)')
      .and.include('build-if-stale: npm run build:web (dist/web/index.html is missing)');
    expect(ran.stdout).to.include('stub serve --web');
  });

  it('npm start and npm run dev build nothing while the builds are newer than their sources, and only what changed after', async () => {
    rmSync(mark(), { force: true });
    for (const script of ['start', 'dev']) {
      const ran = await run(['run', script], dir, env);
      expect(ran.code, ran.stderr).to.equal(0);
      expect(ran.stdout).to.include(`stub ${script === 'start' ? 'serve' : 'dev'} --web`);
    }
    expect(existsSync(mark()), 'a build ran').to.equal(false);
    // A source of the browser app saved after its build (the build made older): the browser app is built again, not the server.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, 'dist', 'web', 'index.html'), hourAgo, hourAgo);
    const ran = await run(['start'], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(readFileSync(mark(), 'utf8')).to.equal('web\n');
    expect(ran.stderr).to.include('build-if-stale: npm run build:web (web/src/main.ts changed since dist/web/index.html was built)');
    // And a source of the server, under npm run dev.
    rmSync(mark(), { force: true });
    utimesSync(join(dir, 'dist', '.tsbuildinfo'), hourAgo, hourAgo);
    const dev = await run(['run', 'dev'], dir, env);
    expect(dev.code, dev.stderr).to.equal(0);
    expect(readFileSync(mark(), 'utf8')).to.equal('server\n');
    expect(dev.stderr).to.include('build-if-stale: npm run build:server (lib/index.ts changed since dist/.tsbuildinfo was built)');
  });

  it('the first npx restlayer runs the CLI and builds nothing', async () => {
    rmSync(mark(), { force: true });
    const ran = await run(['exec', '--offline', '--', 'restlayer', '--version'], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(ran.stdout).to.equal('stub --version\n');
    expect(existsSync(mark()), 'a build ran').to.equal(false);
  });

  it('npx restlayer still runs after a rebuild wrote the CLI anew (build:bin makes it executable again)', async () => {
    // tsc writes files without the execute bit, and npx keeps its link to the file from the first call.
    writeFileSync(join(dir, 'dist/bin/restlayer.js'), '#!/usr/bin/env node\nconsole.log("rebuilt");\n');
    chmodSync(join(dir, 'dist/bin/restlayer.js'), 0o644);
    const built = await run(['run', 'build:bin'], dir, env);
    expect(built.code, built.stderr).to.equal(0);
    const ran = await run(['exec', '--offline', '--', 'restlayer', '--version'], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(ran.stdout).to.equal('rebuilt\n');
  });

  it('npm pack builds before packing', async () => {
    rmSync(mark(), { force: true });
    const ran = await run(['pack', '--offline', '--pack-destination', makeTempDir('restlayer-npx-pack-')], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(readFileSync(mark(), 'utf8')).to.equal('built\n');
  });
});
