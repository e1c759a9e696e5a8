import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectCliFailure, lines } from '../support/cli-env.js';
import { childEnv, killChildren, projectRoot, runCli } from '../support/processes.js';

const version = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** `export NAME=value` lines as { NAME: value }. */
function exports(stdout: string): Record<string, string> {
  return Object.fromEntries(lines(stdout).map((line) => {
    const match = /^export ([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z0-9+/=]+)$/.exec(line);
    expect(match, line).to.not.equal(null);
    return [match![1], match![2]];
  }));
}

describe('restlayer --version and keys generate (real processes)', function () {
  this.timeout(60_000);
  after(killChildren);

  it('--version prints the version of package.json', async () => {
    const run = await runCli(['--version'], { env: childEnv() });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal(`${version}\n`);
    expect(run.stderr).to.equal('');
  });

  it('keys generate works where the keys are missing: in production, of the configured variant', async () => {
    for (const [variant, names] of [['A', ['Authentication__Schemes__Bearer__SigningKeys__0__Value', 'Authentication__Cookie__Keys']], ['B', ['AuthConfig__SigningKey']]] as const) {
      const run = await runCli(['keys', 'generate'], { env: childEnv({ NODE_ENV: 'production', Authentication__Variant: variant }) });
      expect(run.code, run.stderr).to.equal(0);
      expect(Object.keys(exports(run.stdout))).to.deep.equal(names);
    }
  });

  it('keys generate (variant A) prints every secret production needs; with them a production configuration is valid', async () => {
    const run = await runCli(['keys', 'generate'], { env: childEnv() });
    expect(run.code, run.stderr).to.equal(0);
    const keys = exports(run.stdout);
    expect(Object.keys(keys)).to.deep.equal(['Authentication__Schemes__Bearer__SigningKeys__0__Value', 'Authentication__Cookie__Keys']);
    for (const value of Object.values(keys)) expect(Buffer.from(value, 'base64')).to.have.length(32);
    // Fresh each time.
    const other = exports((await runCli(['keys', 'generate', '--variant', 'A'], { env: childEnv() })).stdout);
    expect(other.Authentication__Cookie__Keys).to.not.equal(keys.Authentication__Cookie__Keys);

    const check = await runCli(['config', 'check', '--json'], { env: childEnv({ NODE_ENV: 'production', ...keys }) });
    expect(check.code, check.stderr).to.equal(0);
    expect(JSON.parse(check.stdout)).to.deep.include({ valid: true, warnings: [] });
  });

  it('keys generate --variant B --json: the AuthConfig key as JSON, valid for a production variant B configuration', async () => {
    const run = await runCli(['keys', 'generate', '--variant', 'B', '--json'], { env: childEnv() });
    expect(run.code, run.stderr).to.equal(0);
    const keys = JSON.parse(run.stdout) as Record<string, string>;
    expect(Object.keys(keys)).to.deep.equal(['AuthConfig__SigningKey']);
    const check = await runCli(['config', 'check'], { env: childEnv({ NODE_ENV: 'production', Authentication__Variant: 'B', ...keys }) });
    expect(check.code, check.stderr).to.equal(0);
    expect(check.stderr).to.equal('');
  });

  it('keys generate follows the configured variant, and refuses another: exit 2', async () => {
    const b = await runCli(['keys', 'generate'], { env: childEnv({ Authentication__Variant: 'B' }) });
    expect(Object.keys(exports(b.stdout))).to.deep.equal(['AuthConfig__SigningKey']);
    expectCliFailure(await runCli(['keys', 'generate', '--variant', 'C'], { env: childEnv() }), 2, '--variant must be A or B, not "C"');
    const json = await runCli(['keys', 'generate', '--variant', 'C', '--json'], { env: childEnv() });
    expect(json.code).to.equal(2);
    expect(JSON.parse(json.stdout)).to.deep.equal({ error: '--variant must be A or B, not "C"', exitCode: 2 });
  });
});
