import { expect } from 'chai';
import { createServer } from 'node:net';
import jwt from 'jsonwebtoken';
import { signOperatorToken, tokenSettings } from 'restlayer';
import { cliEnv, expectCliFailure, lines } from '../support/cli-env.js';
import { childEnv, killChildren, runCli } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { mint, newKey } from '../support/tokens.js';
import { salesDb } from '../support/sales-db.js';
import { standIn } from '../support/stand-in.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** A local port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describeOneStore('restlayer lookup flush (a real process against a running server)', WHY_ONE_STORE.cli, function () {
  this.timeout(120_000);
  after(() => killChildren());

  for (const prefix of ['', '/api']) {
    describe(`a server at RestAPI:Path '${prefix}'`, () => {
      let server: TestServer;
      let round = 0;
      const flush = (args: string[], extra: Record<string, string | undefined> = {}) =>
        runCli(['lookup', 'flush', ...args], { env: cliEnv(server, extra) });
      const statusText = async (id = 1) => {
        const reply = await server.call('/lookup-table/sales-order-status');
        expect(reply.status, reply.text).to.equal(200);
        return (reply.body.result.data as { id: number; text: string }[]).find((d) => d.id === id)!.text;
      };
      const territoryText = async (id = 1) => {
        const reply = await server.call('/lookup-table/sales-territory');
        expect(reply.status, reply.text).to.equal(200);
        return (reply.body.result.data as { id: number; text: string }[]).find((d) => d.id === id)!.text;
      };
      /** Renames rows behind the cache and checks the server still shows the cached text. */
      const renameBehindCache = async () => {
        round += 1;
        const names = { status: `Status renamed ${round}`, territory: `Territory renamed ${round}` };
        const before = { status: await statusText(), territory: await territoryText() };
        const db = salesDb(server.infrastructure.storage);
        await db.updateTable('sales_order_status').set({ name: names.status }).where('status_id', '=', 1).execute();
        await db.updateTable('sales_territory').set({ name: names.territory }).where('territory_id', '=', 1).execute();
        expect(await statusText()).to.equal(before.status);
        expect(await territoryText()).to.equal(before.territory);
        return { before, names };
      };

      before(async () => {
        server = await startTestServer({ config: { RestAPI: { Path: prefix } } });
      });
      after(() => server?.stop());

      it('TYPE --url: the running server drops that table (and only that one)', async () => {
        const { before, names } = await renameBehindCache();
        const run = await flush(['sales-order-status', '--url', server.url]);
        expect(run.code, run.stderr).to.equal(0);
        expect(run.stderr).to.equal('');
        expect(lines(run.stdout)).to.deep.equal(['flushed sales-order-status']);
        expect(await statusText()).to.equal(names.status);
        expect(await territoryText()).to.equal(before.territory);
      });

      it('several types, matched case-insensitively, with a trailing slash on --url', async () => {
        const { names } = await renameBehindCache();
        const run = await flush(['Sales-Order-Status', 'sales-territory', '--url', `${server.url}/`]);
        expect(run.code, run.stderr).to.equal(0);
        expect(lines(run.stdout)).to.deep.equal(['flushed Sales-Order-Status', 'flushed sales-territory']);
        const json = await flush(['sales-territory', '--url', server.url, '--json']);
        expect(JSON.parse(json.stdout)).to.deep.equal({ flushed: ['sales-territory'] });
        expect(await statusText()).to.equal(names.status);
        expect(await territoryText()).to.equal(names.territory);
      });

      it('--all drops every table', async () => {
        const { names } = await renameBehindCache();
        const run = await flush(['--all', '--url', server.url]);
        expect(run.code, run.stderr).to.equal(0);
        expect(lines(run.stdout)).to.deep.equal(['flushed all lookup tables']);
        expect(await statusText()).to.equal(names.status);
        expect(await territoryText()).to.equal(names.territory);
      });

      it('without --url it finds the server from the configuration (Server:Port and RestAPI:Path)', async () => {
        const { names } = await renameBehindCache();
        const run = await flush(['--all'], { Server__Port: String(server.port) });
        expect(run.code, run.stderr).to.equal(0);
        expect(await statusText()).to.equal(names.status);
        expect(await territoryText()).to.equal(names.territory);
      });

      if (prefix === '/api') {
        it('without --url and RestAPI:Path unset, it finds a server at /api (serve --web, npm start) on the configured port', async () => {
          const { names } = await renameBehindCache();
          const run = await flush(['--all'], { Server__Port: String(server.port), RestAPI__Path: undefined });
          expect(run.code, run.stderr).to.equal(0);
          expect(lines(run.stdout)).to.deep.equal(['flushed all lookup tables']);
          expect(await statusText()).to.equal(names.status);
          expect(await territoryText()).to.equal(names.territory);
        });

        it('a --url without the prefix: exit 1, the 404 with a hint naming --url and RestAPI:Path', async () => {
          const origin = new URL(server.url).origin;
          const run = await flush(['--all', '--url', origin]);
          expectCliFailure(run, 1, `(${origin} is not the API base of a restlayer server: give it with --url, or set RestAPI:Path as the server has it)`);
          expect(run.stderr).to.include('No resource is found at DELETE /lookup-table.');
        });
      }

      it("an unknown type: exit 1 with the server's message", async () => {
        const run = await flush(['no-such-table', '--url', server.url]);
        expectCliFailure(run, 1);
        expect(run.stderr).to.equal("restlayer: Lookup table 'no-such-table' is not found in the global lookup cache.\n");
      });

      it('a CLI without the signing key the server knows: exit 1 with the server\'s refusal, cache untouched', async () => {
        const { before } = await renameBehindCache();
        const run = await flush(['--all', '--url', server.url], {
          Authentication__Schemes__Bearer__SigningKeys__0__Value: newKey(),
        });
        expectCliFailure(run, 1, 'The access token is not valid for this server.');
        expect(await statusText()).to.equal(before.status);
        // Put the cache back in line with the table for the next test.
        expect((await flush(['--all', '--url', server.url])).code).to.equal(0);
      });
    });
  }

  describe('the token the CLI sends: the flush of one table alone, at that URL alone, once, for seconds', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ config: { RestAPI: { Path: '/api' } } });
    });
    after(() => server?.stop());

    /** The tokens the CLI sends to a stand-in at another URL, which answers 200 to each. */
    async function captureTokens(args: string[]): Promise<string[]> {
      const capture = await standIn({ status: 200, type: 'application/json', body: '{"messages":[]}' });
      try {
        const run = await runCli(['lookup', 'flush', ...args, '--url', capture.url], { env: cliEnv(server) });
        expect(run.code, run.stderr).to.equal(0);
      } finally {
        await capture.close();
      }
      return capture.seen.map((headers) => (headers.authorization ?? '').replace(/^Bearer /, ''));
    }
    const captureToken = async () => (await captureTokens(['--all']))[0];

    it('carries no role, lives seconds, and names the flush, the URL it was sent to and what it flushes', async () => {
      const claims = jwt.decode(await captureToken(), { json: true })!;
      expect(claims).to.not.have.any.keys('role', 'roles');
      expect(claims.exp! - claims.iat!).to.be.at.most(10);
      expect(claims.aud).to.match(/^restlayer-operator:lookup-table\.flush@http:\/\/127\.0\.0\.1:\d+\/api$/);
      expect(claims.target).to.deep.equal({});
    });

    it('sends one token per table, each naming its table, each with its own id', async () => {
      const tokens = await captureTokens(['sales-order-status', 'sales-territory']);
      const claims = tokens.map((t) => jwt.decode(t, { json: true })!);
      expect(claims.map((c) => c.target)).to.deep.equal([{ type: 'sales-order-status' }, { type: 'sales-territory' }]);
      expect(new Set(claims.map((c) => c.jti)).size).to.equal(2);
    });

    it('sent to another URL, it is refused by the real server: on the flush route and everywhere else (401)', async () => {
      const token = await captureToken();
      const flushAll = await server.call('/lookup-table', { method: 'DELETE', token });
      expect(flushAll.status).to.equal(401);
      expect(flushAll.body.messages[0].code).to.equal('Security_TokenInvalid');
      expect((await server.call('/lookup-table/sales-order-status', { method: 'DELETE', token })).status).to.equal(401);
      expect((await server.call('/sales-order/43659', { token })).status).to.equal(401);
    });

    it('one for this server is accepted by the flush route of its table alone: elsewhere, unlock included, 401', async () => {
      const sign = (target: Record<string, string>) => signOperatorToken(tokenSettings(server.config), 'lookup-table.flush', server.url, target);
      expect((await server.call('/lookup-table', { method: 'DELETE', token: sign({}) })).status).to.equal(200);
      expect((await server.call('/lookup-table/sales-order-status', { method: 'DELETE', token: sign({ type: 'sales-order-status' }) })).status).to.equal(200);
      for (const token of [sign({}), sign({ type: 'sales-order-status' })]) {
        expect((await server.call('/sales-order/43659', { token })).status).to.equal(401);
        expect((await server.call('/lookup-table/sales-order-status', { token })).status).to.equal(401);
        expect((await server.call('/login-throttle/somebody', { method: 'DELETE', token })).status).to.equal(401);
      }
      // A token for every table flushes no single one, and one for a table neither every table nor another.
      expect((await server.call('/lookup-table/sales-order-status', { method: 'DELETE', token: sign({}) })).status).to.equal(401);
      expect((await server.call('/lookup-table', { method: 'DELETE', token: sign({ type: 'sales-order-status' }) })).status).to.equal(401);
      expect((await server.call('/lookup-table/sales-territory', { method: 'DELETE', token: sign({ type: 'sales-order-status' }) })).status).to.equal(401);
      // A token for another action (an unlock) does not flush.
      const unlock = signOperatorToken(tokenSettings(server.config), 'login-throttle.unlock', server.url, {});
      expect((await server.call('/lookup-table', { method: 'DELETE', token: unlock })).status).to.equal(401);
    });
  });

  describe('a variant B server', () => {
    const bEnv = { AuthConfig__SigningKey: 'cli-lookup-variant-b-secret-long-enough-42', AuthConfig__Issuer: 'b-issuer', AuthConfig__Audience: 'b-audience' };
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ config: { Authentication: { Variant: 'B' } }, env: bEnv });
    });
    after(() => server?.stop());

    it('flushes with a token signed by the AuthConfig key the CLI reads from the environment', async () => {
      const text = async () => ((await server.call('/lookup-table/sales-order-status', { token: null, headers: { Authorization: `Bearer ${bToken()}` } })).body.result.data as { id: number; text: string }[])[0].text;
      const bToken = () => mint({ key: bEnv.AuthConfig__SigningKey, utf8: true, issuer: 'b-issuer', audience: 'b-audience' });
      const old = await text();
      await salesDb(server.infrastructure.storage).updateTable('sales_order_status').set({ name: 'Renamed under B' }).where('status_id', '=', 1).execute();
      expect(await text()).to.equal(old);
      const run = await runCli(['lookup', 'flush', 'sales-order-status', '--url', server.url], { env: cliEnv(server, bEnv) });
      expect(run.code, run.stderr).to.equal(0);
      expect(await text()).to.equal('Renamed under B');
    });
  });

  describe('failures before any server answers', () => {
    // No store: flushing needs only a signing key and a server to talk to.
    const env = (extra: Record<string, string | undefined> = {}) => childEnv({
      Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
      Authentication__Schemes__Bearer__SigningKeys__0__Value: newKey(),
      ...extra,
    });

    it('no server at the URL: exit 1 with a one-line message naming the URL', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const run = await runCli(['lookup', 'flush', 'sales-order-status', '--url', url], { env: env() });
      expectCliFailure(run, 1, `cannot reach the server at ${url}`);
      const all = await runCli(['lookup', 'flush', '--all', '--url', url], { env: env() });
      expectCliFailure(all, 1, `cannot reach the server at ${url}`);
    });

    it('a --url that is not a URL: exit 1 with one line', async () => {
      expectCliFailure(await runCli(['lookup', 'flush', '--all', '--url', 'not a url'], { env: env() }), 1, 'cannot reach the server at not a url');
    });

    it('no signing key configured: exit 1 naming the key, before calling any server', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const run = await runCli(['lookup', 'flush', '--all', '--url', url], { env: childEnv() });
      expectCliFailure(run, 1, 'Authentication:Schemes:Bearer:SigningKeys is not set');
      expect(run.stderr).to.not.include('cannot reach');
    });

    it('neither types nor --all, or both, or an unknown option: exit 2 with one line', async () => {
      const [neither, both, bogus, noUrl] = await Promise.all([
        ['lookup', 'flush', '--url', 'http://127.0.0.1:9'],
        ['lookup', 'flush', 'operators', '--all', '--url', 'http://127.0.0.1:9'],
        ['lookup', 'flush', '--all', '--bogus'],
        ['lookup', 'flush', '--all', '--url'],
      ].map((args) => runCli(args, { env: env() })));
      expectCliFailure(neither, 2, 'give lookup table types, or --all');
      expectCliFailure(both, 2, 'give lookup table types, or --all');
      expectCliFailure(bogus, 2, "unknown option '--bogus'");
      expectCliFailure(noUrl, 2, "option '--url <url>' argument missing");
    });
  });
});
