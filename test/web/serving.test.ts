import { expect } from 'chai';
import { request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { callUrl } from '../support/http.js';
import { childEnv, killChildren, runCli, startServe } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { newKey } from '../support/tokens.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** A GET with Node's http client (fetch adds its own cache headers to conditional requests). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      res.once('error', reject);
    }).once('error', reject).end();
  });
}

/** A GET whose body is kept as bytes, undecoded (fetch would undo the Content-Encoding). */
function bytesGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.once('error', reject);
    }).once('error', reject).end();
  });
}

const decoders: Record<string, (body: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };

const directives = (csp: string | null) => (csp ?? '').split(';').map((d) => d.trim()).filter(Boolean);

describeOneStore('web app: serving', WHY_ONE_STORE.web, function () {
  this.timeout(60_000);

  describe('Web:Enabled with the API under /api', () => {
    let server: TestServer;
    let origin: string;
    before(async () => {
      server = await startTestServer({ sampleData: false, config: { Web: { Enabled: true }, RestAPI: { Path: '/api' } } });
      origin = new URL(server.url).origin;
    });
    after(() => server.stop());

    it('answers index.html at / with the app\'s CSP, no-cache and an ETag, and the API path filled in', async () => {
      for (const path of ['/', '/index.html']) {
        const res = await fetch(origin + path);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
        expect(res.headers.get('cache-control')).to.equal('no-cache');
        const csp = directives(res.headers.get('content-security-policy'));
        expect(csp).to.include.members(["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"]);
        expect(csp.join(';')).to.not.match(/unsafe-|\*|data:/);
        const html = await res.text();
        expect(html).to.include('<meta name="restlayer-api-path" content="/api">');
        const etag = res.headers.get('etag')!;
        expect(etag).to.match(/^"[\w-]+"$/);
        // fetch asked for a compressed copy (and decoded it): the ETag is that representation's.
        const accept = { 'Accept-Encoding': 'identity' };
        const plainTag = (await rawGet(origin + path, accept)).headers.etag as string;
        expect(plainTag).to.not.equal(etag);
        expect((await rawGet(origin + path, { 'If-None-Match': plainTag, ...accept })).status).to.equal(304);
      }
    });

    it('runs under that CSP as built: no inline script or style, only files of this origin', async () => {
      const html = await (await fetch(`${origin}/`)).text();
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts).to.have.length.greaterThan(0);
      for (const [, attributes, body] of scripts) {
        expect(attributes).to.match(/\bsrc="\/assets\/[^"]+\.js"/);
        expect(body.trim()).to.equal('');
      }
      expect(html).to.not.match(/<style\b|\sstyle=|\son[a-z]+=|javascript:/i);
      expect(html).to.match(/<link rel="stylesheet"[^>]* href="\/assets\/[^"]+\.css"/);
    });

    it('serves the hashed bundles for a year (immutable), other files revalidated', async () => {
      const page = await fetch(`${origin}/`);
      // The app's policy (checked directive by directive above), which the bundles carry too.
      const WEB_APP_CSP = page.headers.get('content-security-policy');
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
      expect(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css'))).to.equal(true);
      for (const asset of assets) {
        const res = await fetch(origin + asset);
        expect(res.status, asset).to.equal(200);
        expect(res.headers.get('cache-control'), asset).to.equal('public, max-age=31536000, immutable');
        expect(res.headers.get('content-type'), asset).to.match(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
        expect(res.headers.get('content-security-policy')).to.equal(WEB_APP_CSP);
        expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      }
      const icon = await fetch(`${origin}/favicon.svg`);
      expect(icon.status).to.equal(200);
      expect(icon.headers.get('cache-control')).to.equal('no-cache');
    });

    it('sends index.html and the bundles compressed to browsers that accept it (br, else gzip), with Vary: Accept-Encoding', async () => {
      const html = (await bytesGet(`${origin}/`)).body.toString();
      const paths = ['/', ...[...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1])];
      expect(paths).to.have.length(3);
      for (const path of paths) {
        const plain = await bytesGet(origin + path);
        expect(plain.headers['content-encoding'], `${path} without Accept-Encoding`).to.equal(undefined);
        expect(plain.headers.vary, path).to.match(/accept-encoding/i);
        const etags = new Set([plain.headers.etag]);
        for (const [accept, encoding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip'], ['identity', undefined]] as const) {
          const reply = await bytesGet(origin + path, { 'Accept-Encoding': accept });
          expect([reply.status, reply.headers['content-encoding']], `${path} with Accept-Encoding: ${accept}`).to.deep.equal([200, encoding]);
          expect(reply.headers.vary, path).to.match(/accept-encoding/i);
          if (!encoding) continue;
          expect(reply.body.length, `${path} ${encoding} is smaller`).to.be.lessThan(plain.body.length / 2);
          expect(decoders[encoding](reply.body).equals(plain.body), `${path} ${encoding} decodes to the file`).to.equal(true);
          etags.add(reply.headers.etag);
        }
        // index.html has an ETag per representation, so a cache never answers one coding's 304 for another.
        if (path === '/') {
          expect(etags.size).to.equal(3);
          const br = await bytesGet(`${origin}/`, { 'Accept-Encoding': 'br' });
          expect((await bytesGet(`${origin}/`, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag as string })).status).to.equal(304);
          expect((await bytesGet(`${origin}/`, { 'Accept-Encoding': 'gzip', 'If-None-Match': br.headers.etag as string })).status).to.equal(200);
        }
      }
    });

    it('keeps the API under /api, with its own default-src \'none\' policy and envelopes', async () => {
      const live = await fetch(`${origin}/api/health/live`);
      expect(live.status).to.equal(200);
      expect(directives(live.headers.get('content-security-policy'))).to.include("default-src 'none'");
      expect(live.headers.get('content-security-policy')).to.not.include('script-src');
      expect((await callUrl(`${origin}/api/sales-order/43659`)).body.messages[0].code).to.equal('Security_Unauthenticated');
      const missing = await callUrl(`${origin}/api/index.html`);
      expect(missing.status).to.equal(404);
      expect(missing.body.messages[0].code).to.equal('Route_NotFound');
      // The API is not at the root any more.
      expect((await callUrl(`${origin}/health/live`)).body.messages[0].code).to.equal('Route_NotFound');
    });

    it('answers paths that are not the app\'s files as the API does (404 envelope): no listing, no dot-files, no way out', async () => {
      for (const path of ['/nope', '/assets', '/assets/', '/../package.json', '/%2e%2e/package.json', '/assets/..%2f..%2fpackage.json', '/.env', '/%E0%A4%A']) {
        const res = await callUrl(origin + path);
        expect(res.status, path).to.be.oneOf([400, 404]);
        expect(res.headers.get('content-type'), path).to.match(/^application\/json/);
        expect(res.body.messages, path).to.have.length(1);
      }
      const post = await callUrl(`${origin}/`, { method: 'POST', body: {} });
      expect(post.status).to.equal(404);
      expect(post.body.messages[0].code).to.equal('Route_NotFound');
    });

    it('a browser navigating outside /api to a path that is nothing gets the app\'s page with the 404; programs and /api keep the envelope', async () => {
      // What Chromium sends when it navigates.
      const NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
      const index = await fetch(`${origin}/`);
      const page = await index.text();
      for (const path of ['/nope', '/orders/43659', '/assets/missing.js']) {
        const res = await fetch(origin + path, { headers: { Accept: NAVIGATION } });
        expect(res.status, path).to.equal(404);
        expect(res.headers.get('content-type'), path).to.equal('text/html; charset=utf-8');
        expect(directives(res.headers.get('content-security-policy')), path).to.include("script-src 'self'");
        expect(res.headers.get('etag'), path).to.equal(null);
        expect(await res.text(), path).to.equal(page);
      }
      // A script's request (no Accept, */*, or JSON) and anything under /api: the envelope, whatever the Accept.
      for (const [path, accept] of [['/nope', '*/*'], ['/nope', 'application/json'], ['/api/nope', NAVIGATION], ['/api/sales-order/0', NAVIGATION]]) {
        const res = await fetch(origin + path, { headers: { Accept: accept } });
        expect(res.headers.get('content-type'), `${path} ${accept}`).to.match(/^application\/json/);
        expect(res.status, `${path} ${accept}`).to.be.oneOf([401, 404]);
      }
    });
  });

  describe('Web:Enabled off (the default)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ sampleData: false });
    });
    after(() => server.stop());

    it('serves no app: / is a 404 envelope and the API stays at the root', async () => {
      const root = await callUrl(`${server.url}/`);
      expect(root.status).to.equal(404);
      expect(root.body.messages[0].code).to.equal('Route_NotFound');
      expect(server.url).to.match(/:\d+$/);
      expect((await callUrl(`${server.url}/health/live`)).status).to.equal(200);
    });
  });

  describe('Web:Enabled with an empty RestAPI:Path, started as a library (no serve default)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ sampleData: false, config: { Web: { Enabled: true } } });
    });
    after(() => server.stop());

    it('shares the root: the app\'s files first, every other path is the API', async () => {
      const html = await (await fetch(`${server.url}/`)).text();
      expect(html).to.include('<meta name="restlayer-api-path" content="">');
      expect((await callUrl(`${server.url}/health/live`)).status).to.equal(200);
      expect((await callUrl(`${server.url}/sales-order/43659`)).body.messages[0].code).to.equal('Security_Unauthenticated');
      expect((await callUrl(`${server.url}/nope`)).body.messages[0].code).to.equal('Route_NotFound');
    });
  });

  describe('restlayer serve --web (a real process)', function () {
    this.timeout(120_000);
    afterEach(killChildren);
    after(removeTempDirs);

    const env = (extra: Record<string, string> = {}) => childEnv({
      Authentication__Cookie__Keys: newKey(),
      Storage__Sqlite__Path: join(makeTempDir('restlayer-web-serve-'), 'web.db'),
      Storage__SampleData: 'false',
      ...extra,
    });

    it('prints the API base and the app URL; the API moves to /api', async () => {
      const served = await startServe(['--web', '--port', '0', '--host', '127.0.0.1'], { env: env() });
      const origin = `http://127.0.0.1:${served.port}`;
      expect(served.url).to.equal(`${origin}/api`);
      expect(served.stdout()).to.include(`restlayer is serving ${origin}/api (try ${origin}/api/health/live); app at ${origin}/\n`);
      expect((await callUrl(`${served.url}/health/live`)).status).to.equal(200);
      const page = await fetch(`${origin}/`);
      expect(page.status).to.equal(200);
      expect(await page.text()).to.include('<meta name="restlayer-api-path" content="/api">');
    });

    it('takes Web__Enabled from the environment too, and keeps a RestAPI:Path that is set', async () => {
      const served = await startServe(['--port', '0', '--host', '127.0.0.1'], { env: env({ Web__Enabled: 'true', RestAPI__Path: '/v1' }) });
      const origin = `http://127.0.0.1:${served.port}`;
      expect(served.url).to.equal(`${origin}/v1`);
      expect(served.stdout()).to.include(`; app at ${origin}/`);
      expect(await (await fetch(`${origin}/`)).text()).to.include('<meta name="restlayer-api-path" content="/v1">');
    });

    it('without --web serves the API alone, at the root, and says nothing of an app', async () => {
      const served = await startServe(['--port', '0', '--host', '127.0.0.1'], { env: env() });
      expect(served.url).to.equal(`http://127.0.0.1:${served.port}`);
      expect(served.stdout()).to.not.include('app at');
      expect((await callUrl(`${served.url}/`)).status).to.equal(404);
    });

    it('documents --web in its help', async () => {
      const help = await runCli(['serve', '--help']);
      expect(help.code).to.equal(0);
      expect(help.stdout).to.match(/--web\s+also serve the browser app at \//);
    });
  });
});
