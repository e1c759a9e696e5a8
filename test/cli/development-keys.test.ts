import { expect } from 'chai';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from 'restlayer';
import { callUrl, freePort } from '../support/http.js';
import { childEnv, killChildren, runCli, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { requireServices } from '../support/hooks.js';
import { createTestDatabase, dropRedisKeys, redisPrefix, redisUrl } from '../support/test-stores.js';
import { mint, newKey } from '../support/tokens.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * Development without configured keys (the README's `npm start`): the server, its restart and the CLI share the keys
 * kept beside the database, so `lookup flush` can reach the running server and tokens outlive a restart.
 */
describeOneStore('development keys: kept beside the database, shared by the server and the CLI (real processes)', WHY_ONE_STORE.developmentKeys, function () {
  this.timeout(90_000);
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  it('loads the same keys in development, a file only its owner reads; random ones in tests and for :memory:', () => {
    const db = join(makeTempDir('restlayer-devkeys-'), 'app.db');
    const load = (env: Record<string, string>) => loadConfig({ env: { Storage__Sqlite__Path: db, ...env } });
    const a = load({ NODE_ENV: 'development' });
    const b = load({ NODE_ENV: 'development' });
    expect(a.config.Authentication.Schemes.Bearer.SigningKeys[0].Value).to.equal(b.config.Authentication.Schemes.Bearer.SigningKeys[0].Value);
    expect(a.config.Authentication.Cookie.Keys).to.deep.equal(b.config.Authentication.Cookie.Keys);
    expect(a.developmentKeysFile).to.equal(join(db, '..', 'development-keys.json'));
    expect(statSync(a.developmentKeysFile!).mode & 0o777).to.equal(0o600);
    expect(a.warnings[0]).to.include('using the development key kept in');
    const variantB = load({ NODE_ENV: 'development', Authentication__Variant: 'B' });
    expect(variantB.config.AuthConfig.SigningKey).to.equal(load({ NODE_ENV: 'development', Authentication__Variant: 'B' }).config.AuthConfig.SigningKey);
    // Tests and in-memory databases keep a key per process.
    const testKey = () => load({ NODE_ENV: 'test', Authentication__Variant: 'B' }).config.AuthConfig.SigningKey;
    expect(testKey()).to.have.length.above(32).and.not.equal(testKey());
    const memory = loadConfig({ env: { NODE_ENV: 'development', Storage__Sqlite__Path: ':memory:' } });
    expect(memory.developmentKeysFile).to.equal(undefined);
  });

  it('lookup flush --all reaches a development server with no keys configured, and a token outlives a restart', async () => {
    const dir = makeTempDir('restlayer-devkeys-');
    const env = childEnv({ NODE_ENV: 'development', Storage__Sqlite__Path: join(dir, 'app.db'), Metrics__Port: '0', Log__Level: 'warn' });
    const port = await freePort();
    const serve = async () => startServe(['--port', String(port)], { env, timeoutMs: 60_000 });
    let server = await serve();
    const added = await runCli(['user', 'add', 'dev', '--role', 'Administrator', '--password-stdin'], { env, input: 'a development password\n' });
    expect(added.code, added.stderr).to.equal(0);

    const flushed = await runCli(['lookup', 'flush', '--all'], { env: { ...env, Server__Port: String(port) } });
    expect(flushed.code, flushed.stderr).to.equal(0);
    expect(flushed.stdout).to.equal('flushed all lookup tables\n');

    const login = await callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: 'dev', password: 'a development password' } });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    const token = (login.body as { result: { accessToken: string } }).result.accessToken;
    server.child.kill('SIGTERM');
    await server.exited;
    server = await serve();
    const after = await callUrl(`${server.url}/sales-order/43659`, { token });
    expect(after.status, JSON.stringify(after.body)).to.equal(200);
  });

  describe('trusted only when private, and never made by a check', () => {
    /** A keys file as an attacker would plant it beside the database: keys they know. */
    function plant(dir: string, mode: number) {
      const keys = { bearer: newKey(), cookie: newKey(), authConfig: newKey() };
      const file = join(dir, 'development-keys.json');
      writeFileSync(file, JSON.stringify(keys), { mode });
      chmodSync(file, mode);
      return { keys, file };
    }
    const devEnv = (dir: string, extra: Record<string, string | undefined> = {}) =>
      childEnv({ NODE_ENV: 'development', Storage__Sqlite__Path: join(dir, 'app.db'), Storage__SampleData: 'false', Metrics__Port: '0', Log__Level: 'warn', ...extra });
    /** A token an attacker holding `key` would sign: an Administrator flushing the lookup tables. */
    const forged = (key: string) => mint({ key, issuer: 'restlayer', audience: 'restlayer', claims: { role: ['Administrator'] } });

    it('a keys file others can read stops startup naming the file and the fix; once private (0600) it is used', async () => {
      const dir = makeTempDir('restlayer-devkeys-');
      const { keys, file } = plant(dir, 0o644);
      const refused = await startServe(['--port', '0'], { env: devEnv(dir), timeoutMs: 60_000 }).then(() => 'started', (err: Error) => err.message);
      expect(refused).to.include(`${file} can be read by other users (mode 0644)`).and.include(`chmod 600 ${file}`);
      chmodSync(file, 0o600);
      const server = await startServe(['--port', '0'], { env: devEnv(dir), timeoutMs: 60_000 });
      expect((await callUrl(`${server.url}/lookup-table`, { method: 'DELETE', token: forged(keys.bearer) })).status).to.equal(200);
    });

    it('a keys file another user owns stops startup and fails config check, naming the file', async function () {
      if (process.getuid?.() !== 0) this.skip(); // Only root can give a file away.
      const dir = makeTempDir('restlayer-devkeys-');
      const { file } = plant(dir, 0o600);
      chownSync(file, 65534, 65534);
      const refused = await startServe(['--port', '0'], { env: devEnv(dir), timeoutMs: 60_000 }).then(() => 'started', (err: Error) => err.message);
      expect(refused).to.include(`${file} belongs to another user (uid 65534`);
      const check = await runCli(['config', 'check'], { env: devEnv(dir) });
      expect(check.code).to.equal(1);
      expect(check.stderr).to.include('belongs to another user');
    });

    it('the database, its -wal and its -shm are created readable by their owner alone (0600)', async () => {
      const dir = makeTempDir('restlayer-dbmode-');
      const server = await startServe(['--port', '0'], { env: devEnv(dir, { NODE_ENV: 'test', Authentication__Schemes__Bearer__SigningKeys__0__Value: newKey() }), timeoutMs: 60_000 });
      // A write, so that SQLite has made every file it keeps by now.
      const db = join(dir, 'app.db');
      const add = await runCli(['user', 'add', 'ada', '--role', 'Clerk', '--password', 'ada-password-1'], { env: devEnv(dir, { NODE_ENV: 'test' }) });
      expect(add.code, add.stderr).to.equal(0);
      expect((await callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: 'ada', password: 'ada-password-1' } })).status).to.equal(200);
      for (const file of [db, `${db}-wal`, `${db}-shm`]) {
        expect(existsSync(file), file).to.equal(true);
        expect((statSync(file).mode & 0o777).toString(8), file).to.equal('600');
      }
    });

    it('PostgreSQL and Redis without NODE_ENV: config check warns loudly and writes no keys file; serve warns too', async function () {
      await requireServices(this, ['postgres', 'redis'], 'the NODE_ENV warning of a scaled-out configuration');
      const database = await createTestDatabase(true);
      const prefix = redisPrefix();
      try {
        const dir = makeTempDir('restlayer-notprod-');
        const env = childEnv({
          NODE_ENV: undefined, Storage__Provider: 'postgres', Storage__Postgres__Url: database.url, Cache__Redis__Url: redisUrl,
          Cache__Redis__KeyPrefix: prefix, Metrics__Port: '0', Log__Level: 'warn',
        });
        const check = await runCli(['config', 'check'], { env, cwd: dir });
        expect(check.code, check.stderr).to.equal(0);
        expect(check.stderr).to.match(/^warning: NOT PRODUCTION: NODE_ENV is not set, yet Storage:Provider is postgres and Cache:Redis:Url is set/);
        expect(existsSync(join(dir, 'data')), 'config check wrote data/').to.equal(false);
        mkdirSync(join(dir, 'data'));
        const server = await startServe(['--port', '0'], { env, cwd: dir, timeoutMs: 60_000 });
        await server.waitForStderr(/NOT PRODUCTION: NODE_ENV is not set/);
        expect((await callUrl(`${server.url}/health/live`)).status).to.equal(200);
      } finally {
        await killChildren();
        await database.drop();
        await dropRedisKeys(prefix);
      }
    });
  });
});
