import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const check = join(projectRoot, '.ci', 'check-public-imports.mjs');
/** lib/ two folders up, spelt at run time: as a literal in this file, the check would find it here too. */
const lib = ['..', '..', 'lib'].join('/');

/** A made-up project holding `files` (path → text), checked by the script: its exit status and what it printed. */
function checkProject(files: Record<string, string>) {
  const root = makeTempDir('restlayer-public-imports-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync(process.execPath, [check, root], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

// `npm test` runs the check on this project itself (npm run check:public-imports) before the suites.
describeOneStore('.ci/check-public-imports.mjs: a sample imports the layer by its package name only', WHY_ONE_STORE.publicImports, () => {
  after(removeTempDirs);

  it('fails on every way of reaching into lib/ by path, naming file and line, and lets the package names through', () => {
    const { status, output } = checkProject({
      'lib/index.ts': 'export const x = 1;\n',
      'services/a/module.ts': `import { x } from "restlayer";\nimport { y } from "${lib}/storage/list-query.js";\n`,
      'routes/a/index.ts': `export { route } from '${lib}/routing/route.js';\n`,
      'web/src/main.ts': `const m = await import('${lib}/client/index.js');\nimport '${lib}/side-effect.js';\n`,
      'test/a.test.ts': "const r = require('../lib');\nimport type { Storage } from \"restlayer\";\nimport { z } from './support/z.js';\n",
    });
    expect(status).to.equal(1);
    const lines = output.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.trim());
    expect(lines).to.have.members([
      'services/a/module.ts:2: ../../lib/storage/list-query.js',
      'routes/a/index.ts:1: ../../lib/routing/route.js',
      'web/src/main.ts:1: ../../lib/client/index.js',
      'web/src/main.ts:2: ../../lib/side-effect.js',
      'test/a.test.ts:1: ../lib',
    ]);
  });

  it('passes a project whose sample imports only the package names and its own files', () => {
    const { status } = checkProject({
      'services/a/module.ts': "import { x } from 'restlayer';\nimport { m } from './models.js';\n",
      'test/a.test.ts': "import { startTestServer } from 'restlayer/testing';\nimport { libby } from './lib/helper.js';\n",
    });
    expect(status).to.equal(0);
  });
});
