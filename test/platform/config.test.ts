import { expect } from 'chai';
import { join } from 'node:path';
import { ConfigError, type LoadedConfig, loadConfig } from 'restlayer';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';
import { newKey } from '../support/tokens.js';

const bearerKey = 'Authentication__Schemes__Bearer__SigningKeys';

/** loadConfig over a fresh config folder holding `files` (name → JSON content) and exactly `env`. */
function load(env: NodeJS.ProcessEnv, files: Record<string, object | string> = {}): LoadedConfig {
  const configDir = writeFiles(makeTempDir('restlayer-config-'), files);
  return loadConfig({ env, configDir });
}

/** The problems of a configuration that must not load. */
function problemsOf(env: NodeJS.ProcessEnv, files: Record<string, object | string> = {}): string[] {
  let loaded: LoadedConfig | undefined;
  try {
    loaded = load(env, files);
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(ConfigError);
    const { problems, message } = err as ConfigError;
    // One line per problem: the message is exactly the problems, one per line.
    expect(message.split('\n')).to.deep.equal(problems);
    for (const p of problems) expect(p).to.not.include('\n');
    return problems;
  }
  expect.fail(`configuration loaded but should not have: ${loaded!.redacted()}`);
}

/** The problem lines that name `key` (in `A:B` form) as their subject. */
const naming = (problems: string[], key: string) => problems.filter((p) => p.startsWith(`${key}:`) || p.startsWith(`${key} `));

/** Variant A keys, so a load is not about missing secrets. */
const keysEnv = (key = newKey()): NodeJS.ProcessEnv => ({
  [`${bearerKey}__0__Issuer`]: 'restlayer',
  [`${bearerKey}__0__Value`]: key,
  Authentication__Cookie__Keys: newKey(),
});

describe('configuration: loadConfig', () => {
  after(removeTempDirs);

  describe('`__` environment variables', () => {
    it('map to keys whatever the case of their names', () => {
      const { config } = load({
        NODE_ENV: 'test',
        ...keysEnv(),
        RestAPI__Path: '/api',
        restapi__maxrows: '250',
        AuthConfig__ExpiresMin: '30',
        AUTHCONFIG__ISSUER: 'issuer-b',
        Storage__SampleData: 'FALSE',
        storage__sqlite__path: '/tmp/x.db',
        Log__Level: 'error',
      });
      expect(config.RestAPI.Path).to.equal('/api');
      expect(config.RestAPI.MaxRows).to.equal(250);
      expect(config.AuthConfig.ExpiresMin).to.equal(30);
      expect(config.AuthConfig.Issuer).to.equal('issuer-b');
      expect(config.Storage.SampleData).to.equal(false);
      expect(config.Storage.Sqlite.Path).to.equal('/tmp/x.db');
      expect(config.Log.Level).to.equal('error');
    });

    it('fill indexed lists: SigningKeys__0__Value, __0__Issuer, __1__Id', () => {
      const first = newKey();
      const second = newKey();
      const { config, warnings } = load({
        NODE_ENV: 'test',
        Authentication__Cookie__Keys: newKey(),
        [`${bearerKey}__0__Value`]: first,
        [`${bearerKey}__0__Issuer`]: 'restlayer',
        'authentication__schemes__bearer__signingkeys__1__value': second,
        'AUTHENTICATION__SCHEMES__BEARER__SIGNINGKEYS__1__ISSUER': 'partner',
        [`${bearerKey}__1__Id`]: 'partner-2024',
      });
      expect(config.Authentication.Schemes.Bearer.SigningKeys).to.deep.equal([
        { Issuer: 'restlayer', Value: first },
        { Issuer: 'partner', Value: second, Id: 'partner-2024' },
      ]);
      expect(warnings).to.deep.equal([]);
    });

    it('take a comma-separated list for a list of strings', () => {
      const cookieKeys = [newKey(), newKey()];
      const { config } = load({ NODE_ENV: 'test', ...keysEnv(), Authentication__Cookie__Keys: cookieKeys.join(','), Authentication__AllowedOrigins: 'https://a.example, https://b.example' });
      expect(config.Authentication.Cookie.Keys).to.deep.equal(cookieKeys);
      expect(config.Authentication.AllowedOrigins).to.deep.equal(['https://a.example', 'https://b.example']);
    });

    it('override config/default.json, which config/<NODE_ENV>.json and RESTLAYER_CONFIG override in turn', () => {
      const extra = join(writeFiles(makeTempDir(), { 'extra.json': { Log: { Level: 'error' } } }), 'extra.json');
      const { config } = load(
        { NODE_ENV: 'test', ...keysEnv(), RestAPI__Path: '/from-env', RESTLAYER_CONFIG: extra },
        {
          'default.json': { RestAPI: { Path: '/from-default', MaxRows: 10 }, Log: { Level: 'debug' }, AuthConfig: { Issuer: 'default-issuer' } },
          'test.json': { RestAPI: { MaxRows: 20 }, Log: { Level: 'info' } },
          'production.json': { RestAPI: { MaxRows: 30 } },
        },
      );
      expect(config.RestAPI.Path).to.equal('/from-env');
      expect(config.RestAPI.MaxRows).to.equal(20);
      expect(config.Log.Level).to.equal('error');
      expect(config.AuthConfig.Issuer).to.equal('default-issuer');
      expect(config.env).to.equal('test');
    });

    it('PORT sets Server:Port', () => {
      expect(load({ NODE_ENV: 'test', ...keysEnv(), PORT: '9123' }).config.Server.Port).to.equal(9123);
      expect(load({ NODE_ENV: 'test', ...keysEnv() }).config.Server.Port).to.equal(8080);
    });
  });

  describe('invalid configuration', () => {
    it('reports every invalid value at once, one line each, naming its key in A:B form', () => {
      const problems = problemsOf({
        NODE_ENV: 'test',
        ...keysEnv(),
        RestAPI__MaxRows: 'many',
        AuthConfig__ExpiresMin: '0',
        Authentication__Variant: 'C',
        RestAPI__Path: 'api/',
        RemoteApi__Authorization: 'perhaps',
      });
      expect(problems).to.have.length(5);
      for (const key of ['RestAPI:MaxRows', 'AuthConfig:ExpiresMin', 'Authentication:Variant', 'RestAPI:Path', 'RemoteApi:Authorization']) {
        expect(naming(problems, key), `${key} in ${JSON.stringify(problems)}`).to.have.length(1);
      }
    });

    it('reports invalid values found in a file', () => {
      const problems = problemsOf({ NODE_ENV: 'test', ...keysEnv() }, { 'default.json': { RestAPI: { MaxRows: -1 }, Storage: { Provider: 'oracle' } } });
      expect(problems).to.have.length(2);
      expect(naming(problems, 'RestAPI:MaxRows')).to.have.length(1);
      expect(naming(problems, 'Storage:Provider')).to.have.length(1);
    });

    it('rejects keys a file has that the schema does not', () => {
      const problems = problemsOf({ NODE_ENV: 'test', ...keysEnv() }, { 'test.json': { RestAPI: { Pathh: '/x' }, Bogus: true } });
      expect(naming(problems, 'RestAPI:Pathh')).to.have.length(1);
      expect(naming(problems, 'Bogus')).to.have.length(1);
      expect(problems).to.have.length(2);
    });

    it('reports a file that is not a JSON object, naming the file', () => {
      const problems = problemsOf({ NODE_ENV: 'test', ...keysEnv() }, { 'default.json': '{ "RestAPI": ' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.include('default.json');
      const notObject = problemsOf({ NODE_ENV: 'test', ...keysEnv() }, { 'default.json': '["RestAPI"]' });
      expect(notObject).to.have.length(1);
      expect(notObject[0]).to.include('default.json');
    });

    it('rejects `__` variables that name no key, each naming the key it tried', () => {
      const problems = problemsOf({
        NODE_ENV: 'test',
        ...keysEnv(),
        RestAPI__Bogus: '1',
        RestAPI__Path__Extra: '/a',
        Storage__Sqlite: 'x',
        [`${bearerKey}__first__Value`]: newKey(),
      });
      expect(naming(problems, 'RestAPI:Bogus')).to.have.length(1);
      expect(naming(problems, 'RestAPI:Path:Extra')).to.have.length(1);
      expect(naming(problems, 'Storage:Sqlite')).to.have.length(1);
      expect(naming(problems, 'Authentication:Schemes:Bearer:SigningKeys:first:Value')).to.have.length(1);
      expect(problems).to.have.length(4);
    });

    it('rejects an indexed entry property that signing keys do not have', () => {
      const problems = problemsOf({ NODE_ENV: 'test', ...keysEnv(), [`${bearerKey}__0__Colour`]: 'blue' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^Authentication:Schemes:Bearer:SigningKeys:0:Colour: /);
    });

    it('reports a list variable holding broken JSON as a problem of that key', () => {
      const problems = problemsOf({ NODE_ENV: 'test', Authentication__Cookie__Keys: newKey(), [bearerKey]: '[{"Issuer":"restlayer",' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^Authentication:Schemes:Bearer:SigningKeys: /);
      const origins = problemsOf({ NODE_ENV: 'test', ...keysEnv(), Authentication__AllowedOrigins: '["https://a.example"' });
      expect(origins).to.have.length(1);
      expect(origins[0]).to.match(/^Authentication:AllowedOrigins: /);
    });

    it('reports an unknown NODE_ENV', () => {
      const problems = problemsOf({ NODE_ENV: 'staging', ...keysEnv() });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.include('staging');
    });
  });

  describe('secrets', () => {
    it('refuses a signing key in a configuration file, without repeating the secret', () => {
      const key = newKey();
      const problems = problemsOf(
        { NODE_ENV: 'test', ...keysEnv() },
        { 'default.json': { Authentication: { Schemes: { Bearer: { SigningKeys: [{ Issuer: 'restlayer', Value: key }] } } } } },
      );
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^Authentication:Schemes:Bearer:SigningKeys: /);
      expect(problems[0]).to.include('default.json');
      expect(problems.join('\n')).to.not.include(key);
    });

    it('refuses cookie keys and the variant B key in files, wherever the file comes from', () => {
      const cookieKey = newKey();
      const secret = 'a-variant-b-secret-of-more-than-32-bytes';
      const extra = join(writeFiles(makeTempDir(), { 'secrets.json': { AuthConfig: { SigningKey: secret } } }), 'secrets.json');
      const problems = problemsOf(
        { NODE_ENV: 'test', ...keysEnv(), RESTLAYER_CONFIG: extra },
        { 'test.json': { Authentication: { Cookie: { Keys: [cookieKey] } } } },
      );
      expect(naming(problems, 'Authentication:Cookie:Keys')).to.have.length(1);
      expect(naming(problems, 'AuthConfig:SigningKey')).to.have.length(1);
      expect(problems).to.have.length(2);
      expect(problems.join('\n')).to.not.include(cookieKey).and.not.include(secret);
    });

    it('requires the keys in production', () => {
      const problems = problemsOf({ NODE_ENV: 'production' });
      expect(naming(problems, 'Authentication:Schemes:Bearer:SigningKeys')).to.have.length(1);
      expect(naming(problems, 'Authentication:Cookie:Keys')).to.have.length(1);
      expect(problems).to.have.length(2);
    });

    it('requires a key of the own issuer in production: a partner key alone is not enough', () => {
      const problems = problemsOf({
        NODE_ENV: 'production',
        Authentication__Cookie__Keys: newKey(),
        [`${bearerKey}__0__Issuer`]: 'partner',
        [`${bearerKey}__0__Value`]: newKey(),
      });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^Authentication:Schemes:Bearer:SigningKeys: /);
    });

    it('requires AuthConfig:SigningKey in production with variant B', () => {
      const problems = problemsOf({ NODE_ENV: 'production', Authentication__Variant: 'B' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^AuthConfig:SigningKey: /);
    });

    it('loads in production when the keys are given, without warnings', () => {
      const key = newKey();
      const { config, warnings } = load({ NODE_ENV: 'production', ...keysEnv(key) });
      expect(config.env).to.equal('production');
      expect(config.Authentication.Schemes.Bearer.SigningKeys).to.deep.equal([{ Issuer: 'restlayer', Value: key }]);
      expect(warnings).to.deep.equal([]);
    });

    it('warns when Storage:QueryTimeoutSeconds is not below RestAPI:RequestTimeoutSeconds', () => {
      const { warnings } = load({ NODE_ENV: 'production', ...keysEnv(newKey()), Storage__QueryTimeoutSeconds: '30', RestAPI__RequestTimeoutSeconds: '30' });
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(/^Storage:QueryTimeoutSeconds \(30\) should be below RestAPI:RequestTimeoutSeconds \(30\)/);
      expect(load({ NODE_ENV: 'production', ...keysEnv(newKey()), Storage__QueryTimeoutSeconds: '29', RestAPI__RequestTimeoutSeconds: '30' }).warnings).to.deep.equal([]);
    });

    it('reports a missing production key together with invalid values', () => {
      const problems = problemsOf({ NODE_ENV: 'production', Authentication__Cookie__Keys: newKey(), RestAPI__MaxRows: '0' });
      expect(naming(problems, 'RestAPI:MaxRows')).to.have.length(1);
      expect(naming(problems, 'Authentication:Schemes:Bearer:SigningKeys')).to.have.length(1);
      expect(problems).to.have.length(2);
    });

    it('in tests (and in development on an in-memory database) uses a random 256-bit key per process, with a warning naming the key', () => {
      // Development on a database file keeps its keys beside it instead (test/cli/development-keys.test.ts).
      for (const env of [{ NODE_ENV: 'test' }, { NODE_ENV: 'development', Storage__Sqlite__Path: ':memory:' }, { Storage__Sqlite__Path: ':memory:' }]) {
        const a = load({ ...env, Authentication__Cookie__Keys: newKey() });
        const b = load({ ...env, Authentication__Cookie__Keys: newKey() });
        const [keyA] = a.config.Authentication.Schemes.Bearer.SigningKeys;
        const [keyB] = b.config.Authentication.Schemes.Bearer.SigningKeys;
        expect(a.config.Authentication.Schemes.Bearer.SigningKeys).to.have.length(1);
        expect(keyA.Issuer).to.equal(a.config.Authentication.Schemes.Bearer.ValidIssuer);
        expect(Buffer.from(keyA.Value, 'base64')).to.have.length(32);
        expect(keyA.Value).to.not.equal(keyB.Value);
        expect(a.warnings).to.have.length(1);
        expect(a.warnings[0]).to.include('Authentication:Schemes:Bearer:SigningKeys');
        expect(a.redacted()).to.not.include(keyA.Value);
      }
    });

    it('outside production generates the cookie keys and the variant B key too', () => {
      const a = load({ NODE_ENV: 'test', [`${bearerKey}__0__Issuer`]: 'restlayer', [`${bearerKey}__0__Value`]: newKey() });
      expect(a.config.Authentication.Cookie.Keys).to.have.length(1);
      expect(a.warnings).to.have.length(1);
      expect(a.warnings[0]).to.include('Authentication:Cookie:Keys');

      const b = load({ NODE_ENV: 'test', Authentication__Variant: 'B' });
      expect(Buffer.byteLength(b.config.AuthConfig.SigningKey)).to.be.at.least(32);
      expect(b.warnings).to.have.length(1);
      expect(b.warnings[0]).to.include('AuthConfig:SigningKey');
      const b2 = load({ NODE_ENV: 'test', Authentication__Variant: 'B' });
      expect(b2.config.AuthConfig.SigningKey).to.not.equal(b.config.AuthConfig.SigningKey);
    });

    it('rejects a variant A signing key shorter than 32 bytes and accepts one of exactly 32', () => {
      const problems = problemsOf({ ...keysEnv(newKey(31)), NODE_ENV: 'test' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^Authentication:Schemes:Bearer:SigningKeys: /);
      const exactly = newKey(32);
      expect(load({ ...keysEnv(exactly), NODE_ENV: 'test' }).config.Authentication.Schemes.Bearer.SigningKeys[0].Value).to.equal(exactly);
    });

    it('rejects a signing key that is not Base64', () => {
      const problems = problemsOf({ ...keysEnv('this is not base64 but it is long enough!!'), NODE_ENV: 'test' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^Authentication:Schemes:Bearer:SigningKeys: /);
    });

    it('rejects a variant B key shorter than 32 bytes, counting UTF-8 bytes', () => {
      const b = (key: string): NodeJS.ProcessEnv => ({ NODE_ENV: 'test', Authentication__Variant: 'B', AuthConfig__SigningKey: key });
      const problems = problemsOf(b('x'.repeat(31)));
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^AuthConfig:SigningKey: /);
      expect(problemsOf(b('é'.repeat(15)))).to.have.length(1); // 15 characters, 30 bytes
      expect(load(b('x'.repeat(32))).config.AuthConfig.SigningKey).to.equal('x'.repeat(32));
      expect(load(b('é'.repeat(16))).config.AuthConfig.SigningKey).to.equal('é'.repeat(16)); // 16 characters, 32 bytes
    });

    it('rejects a cookie key shorter than 32 bytes', () => {
      const problems = problemsOf({ ...keysEnv(), NODE_ENV: 'test', Authentication__Cookie__Keys: `${newKey()},short` });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^Authentication:Cookie:Keys: /);
      expect(problems[0]).to.not.include('short');
    });

    it('redacts every secret when printing the configuration', () => {
      const key = newKey();
      const cookieKey = newKey();
      const { redacted } = load({
        NODE_ENV: 'test',
        [`${bearerKey}__0__Issuer`]: 'restlayer',
        [`${bearerKey}__0__Value`]: key,
        Authentication__Cookie__Keys: cookieKey,
        AuthConfig__SigningKey: 'variant-b-secret-that-is-long-enough-to-pass',
        Storage__Postgres__Url: 'postgres://user:pg-password@db/restlayer',
        Cache__Redis__Url: 'redis://:redis-password@cache:6379',
        RestAPI__Path: '/api',
      });
      const text = redacted();
      const printed = JSON.parse(text);
      expect(printed.RestAPI.Path).to.equal('/api');
      for (const secret of [key, cookieKey, 'variant-b-secret', 'pg-password', 'redis-password']) expect(text).to.not.include(secret);
    });
  });
});
