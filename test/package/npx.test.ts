import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
 * Which of the project's lifecycle scripts npm runs, for `npm install`, `npm pack` and the first `npx restlayer`:
 * a copy of package.json whose `build` script only leaves a mark, in a folder with a stub CLI. npx installs a project
 * whose own bin it is asked for into its cache as a link, running the link's `prepare`: a build there took ~20 s
 * and rewrote dist/ under a running server. Needs no registry (the copy has no dependencies).
 */
describe('npm lifecycle of the project: npx restlayer builds nothing, npm install, npm ci and npm pack build (real npm)', function () {
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
    writeFiles(dir, {
      'package.json': JSON.stringify(pkg, null, 2),
      'dist/bin/restlayer.js': '#!/usr/bin/env node\nconsole.log(`stub ${process.argv.slice(2).join(" ")}`);\n',
      'config/default.json': '{}',
    });
    // npm's own environment without what a surrounding `npm test` hands its scripts; a cache of this test alone.
    env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'));
    env.npm_config_cache = join(dir, '.npm-cache');
  });
  after(removeTempDirs);

  it('npm install builds the project', async () => {
    const ran = await run(['install', '--offline', '--no-audit', '--no-fund'], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(readFileSync(mark(), 'utf8')).to.equal('built\n');
  });

  it('npm ci builds the project too', async () => {
    rmSync(mark(), { force: true });
    const ran = await run(['ci', '--offline', '--no-audit', '--no-fund'], dir, env);
    expect(ran.code, ran.stderr).to.equal(0);
    expect(readFileSync(mark(), 'utf8')).to.equal('built\n');
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
