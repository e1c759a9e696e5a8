import { expect } from 'chai';
import { type TestServer, startTestServer } from '../support/server.js';
import { removeTempDirs } from '../support/temp.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * Strict-Transport-Security only on answers to HTTPS requests: `ctx.secure`, which reads X-Forwarded-Proto only
 * when `Server:TrustProxy` says a proxy in front terminates TLS.
 */
describeOneStore('hardening: HSTS only over HTTPS', WHY_ONE_STORE.http, function () {
  this.timeout(60_000);
  after(removeTempDirs);

  const hstsOf = async (server: TestServer, headers: Record<string, string> = {}) =>
    (await server.call('/health/live', { token: null, headers })).headers.get('strict-transport-security');

  describe('without a trusted proxy', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ sampleData: false, logLevel: 'error' });
    });
    after(() => server?.stop());

    it('a plain HTTP request gets no HSTS, and a client claiming X-Forwarded-Proto: https gets none either', async () => {
      expect(await hstsOf(server)).to.equal(null);
      expect(await hstsOf(server, { 'X-Forwarded-Proto': 'https' })).to.equal(null);
    });

    it('the other security headers still go out', async () => {
      const reply = await server.call('/health/live', { token: null });
      expect(reply.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(reply.headers.get('content-security-policy')).to.match(/default-src 'none'/);
    });
  });

  describe('behind a TLS-terminating proxy (Server:TrustProxy)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ sampleData: false, logLevel: 'error', config: { Server: { TrustProxy: true } } });
    });
    after(() => server?.stop());

    it('a request the proxy received over HTTPS gets helmet\'s HSTS', async () => {
      expect(await hstsOf(server, { 'X-Forwarded-Proto': 'https' })).to.match(/^max-age=\d+; includeSubDomains$/);
    });

    it('a request the proxy received over plain HTTP gets none', async () => {
      expect(await hstsOf(server, { 'X-Forwarded-Proto': 'http' })).to.equal(null);
      expect(await hstsOf(server)).to.equal(null);
    });
  });
});
