import { expect } from 'chai';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { loadConfig, signOperatorToken, tokenSettings } from 'restlayer';
import { cliEnv, expectCliFailure } from '../support/cli-env.js';
import { requireServices } from '../support/hooks.js';
import { callUrl, freePort } from '../support/http.js';
import { killChildren, runCli, sqliteServeEnv, startServe } from '../support/processes.js';
import { salesDb } from '../support/sales-db.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { standIn } from '../support/stand-in.js';
import { type TcpProxy, tcpProxy } from '../support/tcp-proxy.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { redisPrefix, redisUrl, testRedis } from '../support/test-stores.js';
import { newKey } from '../support/tokens.js';
import { addUser } from '../support/users.js';
import { describeStores } from '../support/stores.js';

/** An IPv4 address of this machine other than loopback, if it has one. */
const outsideAddress = Object.values(networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4')?.address;

type Target = Record<string, string>;

/** A request with the headers as given (fetch will not send another Host than the URL's). */
function rawRequest(url: string, init: { method: string; token: string; headers?: Record<string, string> }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method, headers: { Authorization: `Bearer ${init.token}`, ...init.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.once('error', reject).end();
  });
}

/**
 * Issue 37 findings 4 and 5: an operator token (what `restlayer lookup flush` and `user unlock` through the server
 * send) is accepted only when it names this server by what the caller does not control — its Server:PublicUrl, or the
 * loopback URL of the port a loopback connection came in on — never by the request's Host or X-Forwarded-Host; only
 * for the target it names (the user, the table); and only once, also across workers and instances.
 */
describeStores('operator tokens: bound to the server, the target and one use', function () {
  this.timeout(120_000);
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  describe('a relay between the CLI and the server gets nothing (finding 4)', () => {
    let server: TestServer;
    let relay: TcpProxy;
    const flushAll = (url: string) => runCli(['lookup', 'flush', '--all', '--url', url], { env: cliEnv(server) });
    const statusText = async () => ((await server.call('/lookup-table/sales-order-status')).body.result.data as { id: number; text: string }[])
      .find((d) => d.id === 1)!.text;

    before(async () => {
      server = await startTestServer({ logLevel: 'error', config: { RestAPI: { Path: '/api' }, Server: { TrustProxy: true } } });
      await addUser(server, 'sp275', 'sp275-password-1', ['SalesPerson']);
      relay = await tcpProxy('127.0.0.1', server.port);
    });
    after(async () => {
      await relay?.close();
      await server?.stop();
    });

    it('one that forwards the bytes as they are: lookup flush and user unlock exit 1 with the refusal, nothing flushed', async () => {
      const before = await statusText();
      await salesDb(server.infrastructure.storage).updateTable('sales_order_status').set({ name: 'Renamed behind the cache' }).where('status_id', '=', 1).execute();
      const via = `http://127.0.0.1:${relay.port}/api`;
      expectCliFailure(await flushAll(via), 1, "refused the CLI's token");
      expect(await statusText()).to.equal(before);
      expectCliFailure(await runCli(['user', 'unlock', 'sp275', '--url', via], { env: cliEnv(server) }), 1, 'The access token is not valid for this server.');
      // Straight to the server, from its own host, the same command works.
      const direct = await flushAll(server.url);
      expect(direct.code, direct.stderr).to.equal(0);
      expect(await statusText()).to.equal('Renamed behind the cache');
    });

    it('one that sets Host, or X-Forwarded-Host under TrustProxy, to the URL the token names: 401', async () => {
      const named = 'http://relay.example:8080/api';
      const token = () => signOperatorToken(tokenSettings(server.config), 'lookup-table.flush', named, {});
      const flush = `${server.url}/lookup-table`;
      expect((await rawRequest(flush, { method: 'DELETE', token: token(), headers: { Host: 'relay.example:8080' } })).status).to.equal(401);
      const forwarded = { 'X-Forwarded-Host': 'relay.example:8080', 'X-Forwarded-Proto': 'http' };
      const reply = await rawRequest(flush, { method: 'DELETE', token: token(), headers: forwarded });
      expect(reply.status, reply.text).to.equal(401);
      expect(JSON.parse(reply.text).messages[0].code).to.equal('Security_TokenInvalid');
    });
  });

  describe('Server:PublicUrl names the server (finding 4)', () => {
    let server: TestServer;
    const publicUrl = 'https://api.example.test';

    before(async () => {
      server = await startTestServer({ logLevel: 'error', config: { RestAPI: { Path: '/api' }, Server: { PublicUrl: publicUrl } } });
    });
    after(() => server?.stop());

    it('a token naming it with RestAPI:Path is accepted (as a proxy forwards it), one naming it without the prefix is not', async () => {
      const sign = (base: string) => signOperatorToken(tokenSettings(server.config), 'lookup-table.flush', base, {});
      expect((await callUrl(`${server.url}/lookup-table`, { method: 'DELETE', token: sign(`${publicUrl}/api`) })).status).to.equal(200);
      expect((await callUrl(`${server.url}/lookup-table`, { method: 'DELETE', token: sign(`${publicUrl}/API/`) })).status).to.equal(200);
      expect((await callUrl(`${server.url}/lookup-table`, { method: 'DELETE', token: sign(publicUrl) })).status).to.equal(401);
      expect((await callUrl(`${server.url}/lookup-table`, { method: 'DELETE', token: sign('https://other.example.test/api') })).status).to.equal(401);
    });

    it('the CLI on the server\'s host still reaches it at its loopback URL', async () => {
      const run = await runCli(['lookup', 'flush', '--all', '--url', server.url], { env: cliEnv(server) });
      expect(run.code, run.stderr).to.equal(0);
    });

    it('an invalid one stops startup with one line naming the key', () => {
      const problems = [] as string[];
      for (const value of ['api.example.test', 'ftp://api.example.test', 'https://user:pw@api.example.test', 'https://api.example.test/?x=1']) {
        try {
          loadConfig({ env: { NODE_ENV: 'test', Server__PublicUrl: value } });
        } catch (err) {
          problems.push((err as Error).message);
        }
      }
      expect(problems).to.have.length(4);
      for (const problem of problems) expect(problem).to.match(/Server:PublicUrl.*must be empty or an http\(s\) URL/);
    });

    it('a connection from another machine is not loopback: only the public URL is accepted there, whatever Host says', async function () {
      if (!outsideAddress) this.skip();
      const dir = makeTempDir('restlayer-operator-tokens-');
      const key = newKey();
      const port = await freePort();
      const env = sqliteServeEnv(join(dir, 'outside.db'), key, { Storage__SampleData: 'false', HOST: '0.0.0.0', Server__PublicUrl: publicUrl, Log__Level: 'warn' });
      const serve = await startServe(['--port', String(port)], { env });
      const settings = tokenSettings(loadConfig({ env }).config);
      const sign = (base: string) => signOperatorToken(settings, 'lookup-table.flush', base, {});
      const outside = `http://${outsideAddress}:${port}`;
      expect((await callUrl(`${outside}/lookup-table`, { method: 'DELETE', token: sign(outside) })).status, 'naming the address it reached').to.equal(401);
      expect((await callUrl(`${outside}/lookup-table`, { method: 'DELETE', token: sign(`http://127.0.0.1:${port}`) })).status, 'naming loopback').to.equal(401);
      expect((await callUrl(`${outside}/lookup-table`, { method: 'DELETE', token: sign(publicUrl) })).status, 'naming the public URL').to.equal(200);
      expect((await callUrl(`http://127.0.0.1:${port}/lookup-table`, { method: 'DELETE', token: sign(`http://127.0.0.1:${port}`) })).status, 'loopback').to.equal(200);
      serve.child.kill('SIGTERM');
      await serve.exited;
    });
  });

  describe(`each token acts once, on its target alone (finding 5; shared state: ${testRedis ? 'Redis' : 'memory'})`, () => {
    let server: TestServer;
    const unlock = (target: Target) => signOperatorToken(tokenSettings(server.config), 'login-throttle.unlock', server.url, target);
    const unlockAt = (userName: string, token: string) => server.call(`/login-throttle/${encodeURIComponent(userName)}`, { method: 'DELETE', token });

    before(async () => {
      server = await startTestServer({ logLevel: 'error', config: { RestAPI: { Path: '/api' } } });
      for (const name of ['sp275', 'admin']) await addUser(server, name, `${name}-password-1`, ['SalesPerson']);
    });
    after(() => server?.stop());

    it('a token of `user unlock sp275` replayed: 200 once, then 401; for admin, 401', async () => {
      const token = unlock({ userName: 'sp275' });
      expect((await unlockAt('sp275', token)).status).to.equal(200);
      for (let i = 0; i < 2; i++) expect((await unlockAt('sp275', token)).status).to.equal(401);
      expect((await unlockAt('admin', token)).status).to.equal(401);
      // A fresh one for sp275 does not unlock admin either, and stays unused by that refusal.
      const fresh = unlock({ userName: 'sp275' });
      expect((await unlockAt('admin', fresh)).status).to.equal(401);
      expect((await unlockAt('sp275', fresh)).status).to.equal(200);
    });

    it('the CLI names the user it unlocks: its token for sp275 carries the target', async () => {
      const capture = await standIn({ status: 200, type: 'application/json', body: '{"result":{"userName":"sp275","cleared":false},"messages":[]}' });
      try {
        const run = await runCli(['user', 'unlock', 'sp275', '--url', capture.url], { env: cliEnv(server) });
        expect(run.code, run.stderr).to.equal(0);
      } finally {
        await capture.close();
      }
      const token = String(capture.seen[0].authorization).replace(/^Bearer /, '');
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { target: Target; jti: string };
      expect(claims.target).to.deep.equal({ userName: 'sp275' });
      expect(claims.jti).to.be.a('string').and.not.equal('');
    });

    it('one token sent 20 times at once: exactly one 200', async () => {
      const token = unlock({ userName: 'sp275' });
      const statuses = (await Promise.all(Array.from({ length: 20 }, () => unlockAt('sp275', token)))).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(1);
      expect(statuses.filter((s) => s === 401)).to.have.length(19);
    });
  });

  describe('a replay to another worker is refused (finding 5; --workers 2, shared through the primary)', () => {
    it('one token sent 20 times at once to two workers: exactly one 200, and later ones 401', async () => {
      const dir = makeTempDir('restlayer-operator-workers-');
      const env = sqliteServeEnv(join(dir, 'workers.db'), newKey(), { Storage__SampleData: 'false', Log__Level: 'warn' });
      const serve = await startServe(['--port', '0', '--host', '127.0.0.1', '--workers', '2'], { env });
      const token = signOperatorToken(tokenSettings(loadConfig({ env }).config), 'lookup-table.flush', serve.url, {});
      const replies = await Promise.all(Array.from({ length: 20 }, () => callUrl(`${serve.url}/lookup-table`, { method: 'DELETE', token })));
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 200), statuses.join(' ')).to.have.length(1);
      expect(statuses.filter((s) => s === 401)).to.have.length(19);
      expect((await callUrl(`${serve.url}/lookup-table`, { method: 'DELETE', token })).status).to.equal(401);
      serve.child.kill('SIGTERM');
      await serve.exited;
    });
  });

  describe('a replay to another instance is refused (finding 5; shared through Redis)', () => {
    let one: TestServer;
    let two: TestServer;
    const publicUrl = 'https://api.example.test';

    before(async function () {
      await requireServices(this, ['redis'], 'operator token ids shared through Redis');
      // Two instances of one deployment: one Redis prefix, behind one public URL.
      const config = { RestAPI: { Path: '/api' }, Server: { PublicUrl: publicUrl }, Cache: { Redis: { Url: redisUrl, KeyPrefix: redisPrefix() } } };
      one = await startTestServer({ logLevel: 'error', config });
      two = await startTestServer({ logLevel: 'error', config });
    });
    after(async () => {
      await one?.stop();
      await two?.stop();
    });

    it('used on one instance, a token is refused by the other; sent to both at once, one 200', async () => {
      const sign = () => signOperatorToken(tokenSettings(one.config), 'lookup-table.flush', `${publicUrl}/api`, {});
      const token = sign();
      expect((await one.call('/lookup-table', { method: 'DELETE', token })).status).to.equal(200);
      expect((await two.call('/lookup-table', { method: 'DELETE', token })).status).to.equal(401);
      expect((await one.call('/lookup-table', { method: 'DELETE', token })).status).to.equal(401);

      const burst = sign();
      const statuses = (await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).call('/lookup-table', { method: 'DELETE', token: burst }))))
        .map((r) => r.status);
      expect(statuses.filter((s) => s === 200), statuses.join(' ')).to.have.length(1);
      expect(statuses.filter((s) => s === 401)).to.have.length(19);
    });
  });
});
