import { expect } from 'chai';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../lib/config/load.js';
import { callUrl, freePort } from '../support/http.js';
import { childEnv, killChildren, runCli, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';

/**
 * Development without configured keys (the README's `npm start`): the server, its restart and the CLI share the keys
 * kept beside the database, so `lookup flush` can reach the running server and tokens outlive a restart.
 */
describe('development keys: kept beside the database, shared by the server and the CLI (real processes)', function () {
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
});
