import { expect } from 'chai';
import { type TestServer, startTestServer } from '../support/server.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

interface Raw {
  status: number;
  headers: Headers;
  text: string;
  /** The body as the envelope (or the bare document), for answers that are JSON. */
  body: { messages: { code: string }[]; result?: unknown; servers?: unknown };
}

/** GET below the prefix, any content type (server.call reads every answer as JSON). */
async function get(server: TestServer, path: string, init: { token?: string | null; headers?: Record<string, string> } = {}): Promise<Raw> {
  const token = init.token === undefined ? server.token() : init.token;
  const res = await fetch(server.url + path, { headers: { ...init.headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
  const text = await res.text();
  const json = /json/.test(res.headers.get('Content-Type') ?? '');
  return { status: res.status, headers: res.headers, text, body: json ? JSON.parse(text) : { messages: [] } };
}

/** The asset URLs (below the prefix) the page names in its <link> and <script> tags. */
function assetPaths(html: string, prefix: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&')).map((url) => {
    expect(url.startsWith(`${prefix}/docs/assets/`), url).to.equal(true);
    return url.slice(prefix.length);
  });
}

describeOneStore('GET /docs: the API reference page', WHY_ONE_STORE.openapi, () => {
  const servers: TestServer[] = [];
  const start = async (publicDocs: boolean, prefix = '/api') => {
    const server = await startTestServer({ config: { RestAPI: { PublicDocs: publicDocs, Path: prefix } }, sampleData: false, logLevel: 'error' });
    servers.push(server);
    return server;
  };
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("is titled with the application's name (RestAPI:Title here), escaped", async () => {
    const server = await startTestServer({ config: { RestAPI: { Title: 'Orders & <Co>' } }, sampleData: false, logLevel: 'error' });
    servers.push(server);
    const page = await get(server, '/docs');
    expect(page.text).to.include('<title>Orders &amp; &lt;Co&gt; API reference</title>');
  });

  it('with RestAPI:PublicDocs true, the page, its assets and the bare document answer anonymous callers', async () => {
    const server = await start(true);
    const page = await get(server, '/docs', { token: null });
    expect(page.status).to.equal(200);
    expect(page.headers.get('Content-Type')).to.equal('text/html; charset=utf-8');
    // The page's policy, which its assets carry too.
    const DOCS_CSP = page.headers.get('Content-Security-Policy');
    expect(DOCS_CSP).to.include("script-src 'self';").and.include("style-src 'self';").and.include("img-src 'self' data:;").and.not.include('unsafe');
    expect(page.headers.get('Cache-Control')).to.equal('no-cache');
    expect(page.text).to.include('data-spec="/api/docs/openapi.json"');
    // No inline script or style: the CSP allows neither.
    expect(page.text).to.not.match(/<script>|<style|style="/);
    const again = await get(server, '/docs', { token: null, headers: { 'If-None-Match': page.headers.get('ETag')! } });
    expect(again.status).to.equal(304);

    const assets = assetPaths(page.text, '/api');
    expect(assets.map((a) => a.split('/').pop())).to.have.members(['swagger-ui.css', 'favicon-32x32.png', 'swagger-ui-bundle.js', 'docs.js']);
    for (const path of assets) {
      const asset = await get(server, path, { token: null });
      expect(asset.status, path).to.equal(200);
      expect(asset.headers.get('Cache-Control'), path).to.equal('public, max-age=31536000, immutable');
      expect(asset.headers.get('Content-Security-Policy'), path).to.equal(DOCS_CSP);
    }
    const stale = await get(server, assets[0].replace(/assets\/[^/]+\//, 'assets/0000000000000000/'), { token: null });
    expect([stale.status, stale.body.messages[0].code]).to.deep.equal([404, 'Route_NotFound']);

    const bare = await get(server, '/docs/openapi.json', { token: null });
    expect(bare.status).to.equal(200);
    expect(bare.headers.get('Content-Type')).to.equal('application/json; charset=utf-8');
    const enveloped = await get(server, '/openapi.json', { token: null });
    expect(bare.body).to.deep.equal(enveloped.body.result);
    expect(bare.headers.get('ETag')).to.not.equal(enveloped.headers.get('ETag'));
    expect((bare.body as unknown as { servers: unknown }).servers).to.deep.equal([{ url: '/api' }]);
  });

  it('with RestAPI:PublicDocs false, every part of it needs an authenticated caller: the 401 envelope otherwise', async () => {
    const server = await start(false, '');
    const authenticated = await get(server, '/docs');
    expect(authenticated.status, authenticated.text).to.equal(200);
    // Behind the gate: the caller's own browser may keep the page and the document, a shared cache may not.
    expect(authenticated.headers.get('Cache-Control')).to.equal('private, no-cache');
    expect((await get(server, '/docs/openapi.json')).headers.get('Cache-Control')).to.equal('private, no-cache');
    const paths = ['/docs', '/docs/openapi.json', ...assetPaths(authenticated.text, '')];
    for (const path of paths) {
      const reply = await get(server, path, { token: null });
      expect([reply.status, reply.body.messages.map((m) => m.code)], path).to.deep.equal([401, ['Security_Unauthenticated']]);
      expect(reply.headers.get('WWW-Authenticate')).to.equal('Bearer');
      expect(reply.headers.get('Content-Security-Policy')).to.equal("default-src 'none';frame-ancestors 'none'");
      const bad = await get(server, path, { token: 'not-a-token' });
      expect([bad.status, bad.body.messages[0].code], path).to.deep.equal([401, 'Security_TokenInvalid']);
      expect((await get(server, path)).status, path).to.equal(200);
    }
  });
});
