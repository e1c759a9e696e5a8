import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { projectRoot } from '../support/processes.js';

interface Lock {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
}

const read = (file: string) => readFileSync(join(projectRoot, file), 'utf8');

/**
 * The Node.js version restlayer says it needs is one every installed package accepts: `npm install` on the oldest
 * Node the README names warns about none (issue 42 found a development dependency that asked for 22.19).
 */
describe('the Node.js version: README, package.json and every installed package agree', () => {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  const oldest = semver.minVersion(engines)!;

  it('the README names the oldest version package.json accepts', () => {
    const said = /Requirements: Node\.js (\d+\.\d+) or later/.exec(read('README.md'));
    expect(said, 'the README\'s "Requirements: Node.js X.Y or later"').to.not.equal(null);
    expect(`${said![1]}.0`).to.equal(oldest.version);
  });

  it('every package of package-lock.json (development ones included) accepts that version', () => {
    const lock = JSON.parse(read('package-lock.json')) as Lock;
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      return range && !semver.satisfies(oldest, range) ? [`${path.replace(/^node_modules\//, '')} needs node ${range}`] : [];
    });
    expect(refusing, `packages that npm install warns about on Node ${oldest.version}`).to.deep.equal([]);
  });

  it('and the Node.js running the tests is one of them', () => {
    expect(semver.satisfies(process.version, engines), process.version).to.equal(true);
  });
});
