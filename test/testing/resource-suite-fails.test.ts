import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/lying-declaration.js', import.meta.url));

interface MochaReport {
  stats: { passes: number; failures: number };
  failures: { fullTitle: string }[];
}

/** Runs one file in a mocha of its own (SQLite, JSON report) and answers the report. */
function mochaRun(file: string): Promise<MochaReport> {
  const env = { ...process.env };
  for (const name of ['RESTLAYER_TEST_STORAGE', 'RESTLAYER_TEST_REDIS']) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['node_modules/mocha/bin/mocha.js', '--reporter', 'json', file], { cwd: projectRoot, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out.slice(out.indexOf('{\n'))) as MochaReport);
      } catch {
        reject(new Error(`mocha printed no report: ${err}${out}`));
      }
    });
  });
}

/** The suite's tests can fail: over a declaration that differs from what the server serves, exactly the differing parts do. */
describeOneStore('resourceSuite over a declaration the server does not serve', WHY_ONE_STORE.resourceSuite, function () {
  this.timeout(120_000);

  it('fails the text limit and the unique key it declares otherwise, and passes the rest', async () => {
    const report = await mochaRun(fixture);
    const failed = report.failures.map((f) => f.fullTitle.replace(/^.*\(resourceSuite\) /, ''));
    expect(failed.sort()).to.deep.equal([
      'validation from the field definitions code takes at most 11 characters: longer is a 400 Input_TooLong on create, PUT and PATCH',
      'validation from the field definitions quantity is unique: of concurrent creates of one value one is 201, the others 409 Entity_Duplicate on it; so is a PUT to it',
    ]);
    expect(report.stats.passes).to.be.above(20);
  });
});
