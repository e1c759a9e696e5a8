import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../support/processes.js';

const depcruise = join(projectRoot, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const config = join(projectRoot, '.dependency-cruiser.cjs');

/** Runs the architecture check (the rules of .dependency-cruiser.cjs) over `lib` in `cwd`, as `npm run check:architecture` does. */
function check(cwd: string) {
  const run = spawnSync(process.execPath, [depcruise, 'lib', '--config', config, '--output-type', 'err'], { cwd, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe('architecture: layers with one direction, no cycles (npm run check:architecture)', function () {
  this.timeout(120_000);

  it('passes on the repository', () => {
    const { status, output } = check(projectRoot);
    expect(status, output).to.equal(0);
  });

  describe('fails on a violation', () => {
    let dir: string;
    const write = (files: Record<string, string>) => {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
    };
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'restlayer-architecture-'));
      write({ 'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }) });
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('an upward import (auth importing the HTTP layer), a type import included', () => {
      write({
        'lib/http/context.ts': 'export interface Ctx { id: string }\n',
        'lib/auth/login.ts': "import type { Ctx } from '../http/context.js';\nexport const login = (ctx: Ctx) => ctx.id;\n",
      });
      const { status, output } = check(dir);
      expect(status).to.not.equal(0);
      expect(output).to.include('no-upward-from-domain: lib/auth/login.ts → lib/http/context.ts');
    });

    it('a cycle, even of type imports within one layer; a test file inside lib/ is exempt from the layers only', () => {
      write({
        'lib/auth/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
        'lib/auth/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
        'lib/storage/store.test.ts': "import type { A } from '../auth/a.js';\nexport type T = A;\n",
      });
      const { status, output } = check(dir);
      expect(status).to.not.equal(0);
      expect(output).to.match(/no-cycles: lib\/auth\/a\.ts/);
      expect(output).to.not.include('lib/storage/store.test.ts');
    });

    it('the layer importing the sample application, and the client importing code', () => {
      write({
        'services/notes/note-service.ts': 'export const notes = 1;\n',
        'lib/routing/route.ts': "import { notes } from '../../services/notes/note-service.js';\nexport const n = notes;\n",
        'lib/client/http.ts': "import { n } from '../routing/route.js';\nexport const m = n;\n",
      });
      const { status, output } = check(dir);
      expect(status).to.not.equal(0);
      expect(output).to.include('lib-not-the-sample: lib/routing/route.ts → services/notes/note-service.ts');
      expect(output).to.include('client-types-only: lib/client/http.ts → lib/routing/route.ts');
    });
  });
});
