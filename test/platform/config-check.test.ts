import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv, killChildren, runCli } from '../support/processes.js';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';
import { newKey } from '../support/tokens.js';
import { pgAdminUrl } from '../support/test-stores.js';

const stackLine = /^\s+at\s/m;

/** The lines of stderr that report a problem of `key` (indented below the "invalid configuration:" line). */
const problemLines = (stderr: string, key: string) => stderr.split('\n').filter((line) => line.trim().startsWith(`${key}:`));

describe('restlayer config check (a real process)', function () {
  this.timeout(60_000);
  let cwd: string;
  const key = newKey();
  const cookieKey = newKey();
  const keys = {
    Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
    Authentication__Schemes__Bearer__SigningKeys__0__Value: key,
    Authentication__Cookie__Keys: cookieKey,
  };

  before(() => {
    cwd = makeTempDir('restlayer-cli-cwd-');
  });
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  it('exits 0, prints the configuration from `__` variables and redacts the secrets', async () => {
    const run = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, RestAPI__Path: '/api', restapi__maxrows: '77', Storage__Postgres__Url: 'postgres://u:pg-secret@db/x' }) });
    expect(run.code, run.stderr).to.equal(0);
    const [first, secrets, database, ...rest] = run.stdout.split('\n');
    expect(first).to.equal('configuration is valid');
    // Which secrets are set, never what they are.
    expect(secrets).to.equal('secrets: Authentication:Schemes:Bearer:SigningKeys set; Authentication:Cookie:Keys set');
    expect(database).to.equal('database: data/restlayer.db (SQLite) does not exist yet: the first start makes it, with its schema and the sample data');
    const printed = JSON.parse(rest.join('\n'));
    expect(printed.RestAPI).to.deep.include({ Path: '/api', MaxRows: 77 });
    expect(printed.env).to.equal('test');
    for (const secret of [key, cookieKey, 'pg-secret']) {
      expect(run.stdout).to.not.include(secret);
      expect(run.stderr).to.not.include(secret);
    }
    expect(printed.Authentication.Schemes.Bearer.SigningKeys).to.be.a('string').and.not.include(key);
    expect(run.stderr).to.equal('');
  });

  it('--json prints parseable JSON with the configuration and the warnings', async () => {
    const run = await runCli(['config', 'check', '--json'], { cwd, env: childEnv({ ...keys, AuthConfig__ExpiresMin: '45' }) });
    expect(run.code, run.stderr).to.equal(0);
    const out = JSON.parse(run.stdout);
    expect(out.valid).to.equal(true);
    expect(out.warnings).to.deep.equal([]);
    expect(out.config.AuthConfig.ExpiresMin).to.equal(45);
    expect(run.stdout).to.not.include(key).and.not.include(cookieKey);
  });

  it('warns about a generated development key, and --json still prints nothing but JSON on stdout', async () => {
    const plain = await runCli(['config', 'check'], { cwd, env: childEnv() });
    expect(plain.code, plain.stderr).to.equal(0);
    expect(plain.stderr.split('\n').filter((l) => l.startsWith('warning:') && l.includes('Authentication:Schemes:Bearer:SigningKeys'))).to.have.length(1);

    const json = await runCli(['config', 'check', '--json'], { cwd, env: childEnv() });
    expect(json.code, json.stderr).to.equal(0);
    const out = JSON.parse(json.stdout);
    expect(out.warnings.filter((w: string) => w.includes('Authentication:Schemes:Bearer:SigningKeys'))).to.have.length(1);
  });

  it('exits 1 on invalid configuration with one stderr line per problem and no stack trace', async () => {
    const run = await runCli(['config', 'check'], {
      cwd,
      env: childEnv({ ...keys, RestAPI__MaxRows: 'lots', AuthConfig__ExpiresMin: '-3', Authentication__Variant: 'Z', RestAPI__Nope: 'x' }),
    });
    expect(run.code).to.equal(1);
    expect(run.stdout).to.equal('');
    for (const k of ['RestAPI:MaxRows', 'AuthConfig:ExpiresMin', 'Authentication:Variant', 'RestAPI:Nope']) {
      expect(problemLines(run.stderr, k), `${k} in:\n${run.stderr}`).to.have.length(1);
    }
    expect(run.stderr).to.not.match(stackLine);
    expect(run.stderr).to.not.include(key);
  });

  it('exits 1 with --json too: the problems as JSON on stdout, and on stderr as without it', async () => {
    const run = await runCli(['config', 'check', '--json'], { cwd, env: childEnv({ ...keys, RestAPI__Path: 'no-slash', Log__Level: 'loud' }) });
    expect(run.code).to.equal(1);
    const out = JSON.parse(run.stdout);
    expect(out).to.include({ valid: false, exitCode: 1 });
    expect(out.problems).to.have.length(2);
    expect(out.problems.filter((p: string) => p.startsWith('RestAPI:Path:'))).to.have.length(1);
    expect(out.problems.filter((p: string) => p.startsWith('Log:Level:'))).to.have.length(1);
    expect(problemLines(run.stderr, 'RestAPI:Path')).to.have.length(1);
    expect(run.stderr).to.not.match(stackLine);
  });

  it('exits 1 in production without keys, naming each missing key and the exact variable to set', async () => {
    const run = await runCli(['config', 'check'], { cwd, env: childEnv({ NODE_ENV: 'production' }) });
    expect(run.code).to.equal(1);
    expect(problemLines(run.stderr, 'Authentication:Schemes:Bearer:SigningKeys')).to.deep.equal([
      '  Authentication:Schemes:Bearer:SigningKeys: required in production (set Authentication__Schemes__Bearer__SigningKeys__0__Value; restlayer keys generate prints one)',
    ]);
    expect(problemLines(run.stderr, 'Authentication:Cookie:Keys')).to.deep.equal([
      '  Authentication:Cookie:Keys: required in production (set Authentication__Cookie__Keys; restlayer keys generate prints one)',
    ]);
    expect(run.stderr).to.not.match(stackLine);
  });

  it('in production, the signing key variable the hint names is enough: its Issuer defaults to ValidIssuer', async () => {
    const run = await runCli(['config', 'check', '--json'], {
      cwd,
      env: childEnv({ NODE_ENV: 'production', Authentication__Schemes__Bearer__SigningKeys__0__Value: key, Authentication__Cookie__Keys: cookieKey, Authentication__Schemes__Bearer__ValidIssuer: 'sales-api' }),
    });
    expect(run.code, run.stderr).to.equal(0);
    const out = JSON.parse(run.stdout);
    expect(out.secrets).to.deep.equal({ 'Authentication:Schemes:Bearer:SigningKeys': 'set', 'Authentication:Cookie:Keys': 'set' });
    expect(run.stdout).to.not.include(key).and.not.include(cookieKey);
  });

  it('says which secrets are not set (a random key for this process) without showing any', async () => {
    const run = await runCli(['config', 'check'], { cwd, env: childEnv({ Authentication__Cookie__Keys: cookieKey }) });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.split('\n')[1]).to.equal('secrets: Authentication:Schemes:Bearer:SigningKeys not set (a random key for this process only); Authentication:Cookie:Keys set');
    const b = await runCli(['config', 'check', '--json'], { cwd, env: childEnv({ Authentication__Variant: 'B' }) });
    const out = JSON.parse(b.stdout);
    expect(out.secrets).to.deep.equal({ 'AuthConfig:SigningKey': 'not set (a random key for this process only)' });
    expect(out.warnings).to.have.length(1);
    expect(out.warnings[0]).to.include('AuthConfig:SigningKey is not set').and.include('(set AuthConfig__SigningKey;');
  });

  it('NODE_ENV outside production, development and test: exit 1 naming NODE_ENV and the allowed values', async () => {
    const run = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, NODE_ENV: 'prod' }) });
    expect(run.code).to.equal(1);
    expect(run.stdout).to.equal('');
    expect(problemLines(run.stderr, 'NODE_ENV')).to.deep.equal(['  NODE_ENV: "prod" is not an environment; set NODE_ENV to production, development or test']);
    expect(run.stderr).to.not.match(stackLine);
  });

  it('a malformed PostgreSQL URL: exit 1 naming Storage:Postgres:Url, without echoing it (it may hold a password)', async () => {
    for (const url of ['mysql://u:pw-secret@db/x', 'not a url pw-secret', 'postgres://']) {
      const run = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, Storage__Provider: 'postgres', Storage__Postgres__Url: url }) });
      expect(run.code, url).to.equal(1);
      expect(problemLines(run.stderr, 'Storage:Postgres:Url'), run.stderr).to.deep.equal(['  Storage:Postgres:Url: must be a URL like postgres://user:password@host:5432/database']);
      expect(run.stderr).to.not.include('pw-secret');
    }
  });

  it('postgres without Storage:Postgres:Url: exit 1 naming the key it needs; an unknown provider names Storage:Provider and its values', async () => {
    const bare = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, Storage__Provider: 'postgres' }) });
    expect(bare.code, bare.stderr).to.equal(1);
    expect(problemLines(bare.stderr, 'Storage:Postgres:Url')).to.deep.equal(['  Storage:Postgres:Url: required when Storage:Provider is postgres (e.g. postgres://user@host:5432/db)']);
    const unknown = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, Storage__Provider: 'mysql' }) });
    expect(unknown.code, unknown.stderr).to.equal(1);
    const named = problemLines(unknown.stderr, 'Storage:Provider');
    expect(named, unknown.stderr).to.have.length(1);
    expect(named[0]).to.include('sqlite').and.include('postgres').and.include('mysql');
    expect(problemLines(unknown.stderr, 'Storage:Postgres:Url')).to.deep.equal([]);
    expect(unknown.stderr).to.not.match(stackLine);
  });

  it('exits 1 for a RESTLAYER_CONFIG file holding an unknown key or a secret', async () => {
    const dir = writeFiles(makeTempDir(), {
      'unknown.json': { RestAPI: { MaxRowz: 5 } },
      'secret.json': { AuthConfig: { SigningKey: 'a-secret-that-must-not-live-in-a-file' } },
      'broken.json': '{ "RestAPI": ',
    });
    const unknown = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, RESTLAYER_CONFIG: join(dir, 'unknown.json') }) });
    expect(unknown.code).to.equal(1);
    expect(problemLines(unknown.stderr, 'RestAPI:MaxRowz')).to.have.length(1);

    const secret = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, RESTLAYER_CONFIG: join(dir, 'secret.json') }) });
    expect(secret.code).to.equal(1);
    expect(problemLines(secret.stderr, 'AuthConfig:SigningKey')).to.have.length(1);
    expect(secret.stderr).to.not.include('a-secret-that-must-not-live-in-a-file');

    const broken = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, RESTLAYER_CONFIG: join(dir, 'broken.json') }) });
    expect(broken.code).to.equal(1);
    expect(broken.stderr).to.include('broken.json');
    expect(broken.stderr).to.not.match(stackLine);
  });

  it('exits 1, naming the key, when a list variable holds broken JSON', async () => {
    const run = await runCli(['config', 'check'], {
      cwd,
      env: childEnv({ Authentication__Cookie__Keys: cookieKey, Authentication__Schemes__Bearer__SigningKeys: '[{"Issuer":' }),
    });
    expect(run.code).to.equal(1);
    expect(problemLines(run.stderr, 'Authentication:Schemes:Bearer:SigningKeys')).to.have.length(1);
    expect(run.stderr).to.not.match(stackLine);
  });

  it('tries the database without changing it: an SQLite file that is not there is not made, one that is there is opened', async () => {
    const dir = makeTempDir('restlayer-config-db-');
    const env = childEnv({ ...keys, Storage__Sqlite__Path: join(dir, 'app.db') });
    const before = await runCli(['config', 'check', '--json'], { cwd, env });
    expect(before.code, before.stderr).to.equal(0);
    expect(JSON.parse(before.stdout).database).to.equal(`${join(dir, 'app.db')} (SQLite) does not exist yet: the first start makes it, with its schema and the sample data`);
    expect(existsSync(join(dir, 'app.db'))).to.equal(false);
    // A user command makes the database (with its schema), as a first start would.
    const made = await runCli(['user', 'list'], { cwd, env });
    expect(made.code, made.stderr).to.equal(0);
    const after = await runCli(['config', 'check'], { cwd, env });
    expect(after.stdout.split('\n')[2]).to.match(new RegExp(`^database: ${join(dir, 'app.db').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(SQLite\\) opened: \\d+ tables$`));
  });

  it('a PostgreSQL database that does not exist: exit 1, one line naming the database and the createdb command that makes it', async () => {
    const missing = new URL(pgAdminUrl);
    missing.pathname = '/restlayer_config_check_missing';
    const run = await runCli(['config', 'check'], { cwd, env: childEnv({ ...keys, Storage__Provider: 'postgres', Storage__Postgres__Url: missing.toString() }) });
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stdout).to.equal('');
    const failure = run.stderr.split('\n').filter((l) => l && !l.startsWith('warning:'));
    expect(failure).to.have.length(1);
    expect(failure[0]).to.match(/^restlayer: the configuration is valid, but its database cannot be used: Storage:Postgres:Url: the database restlayer_config_check_missing does not exist on PostgreSQL at \S+; create it \(createdb -h \S+ -p \d+( -U \S+)? restlayer_config_check_missing\), then start again/);
    expect(run.stderr).to.not.match(stackLine);
  });

  it('exits 2 on a usage error: unknown option, unknown command, extra argument', async () => {
    const option = await runCli(['config', 'check', '--bogus'], { cwd, env: childEnv(keys) });
    expect(option.code).to.equal(2);
    expect(option.stderr).to.include("unknown option '--bogus'");
    expect(option.stdout).to.equal('');

    const command = await runCli(['frobnicate'], { cwd, env: childEnv(keys) });
    expect(command.code).to.equal(2);
    expect(command.stderr).to.include("unknown command 'frobnicate'");

    const extra = await runCli(['config', 'check', 'please'], { cwd, env: childEnv(keys) });
    expect(extra.code).to.equal(2);
    expect(extra.stdout).to.equal('');
    for (const run of [option, command, extra]) expect(run.stderr).to.not.match(stackLine);
  });
});
