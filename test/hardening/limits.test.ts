import { expect } from 'chai';
import { routeFolder } from '../support/route-fixtures.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { removeTempDirs } from '../support/temp.js';
import { request } from 'node:http';
import { type RawReply, expectEnvelope, expectSaneAnswer, parseRaw, send, sendAllThenRead, sendRaw } from './hostile.js';
import { describeStores } from '../support/stores.js';

/**
 * The limits operators can set, each answered with the contract's envelope; the security headers on every kind of
 * answer; CORS for the configured origins only.
 */

const codesOf = (text: string) => (JSON.parse(text) as { messages: { code: string }[] }).messages.map((m) => m.code);

/** Headers every answer must carry, success or failure, whether Koa or the socket-level handler wrote it. */
function expectSecurityHeaders(headers: Record<string, string | string[] | undefined>, context: string) {
  expect(headers['content-security-policy'], context).to.match(/default-src 'none'/).and.to.match(/frame-ancestors 'none'/);
  expect(headers['x-content-type-options'], context).to.equal('nosniff');
  expect(headers['x-frame-options'], context).to.match(/^(DENY|SAMEORIGIN)$/);
  expect(headers['referrer-policy'], context).to.equal('no-referrer');
  // Plain HTTP: HSTS is only for answers over HTTPS (test/hardening/hsts.test.ts).
  expect(headers['strict-transport-security'], context).to.equal(undefined);
  expect(headers['cross-origin-resource-policy'], context).to.equal('same-site');
  expect(headers['x-request-id'], context).to.be.a('string').that.is.not.empty;
}

describeStores('hardening: limits, security headers and CORS', function () {
  this.timeout(60_000);
  after(removeTempDirs);

  describe('limits set in configuration', () => {
    let server: TestServer;
    const MAX_BODY = 2_000;
    const MAX_HEADER = 4_096;
    const MAX_QUERY = 200;
    const MAX_ROWS = 25;
    before(async () => {
      server = await startTestServer({
        config: { RestAPI: { MaxBodyBytes: MAX_BODY, MaxHeaderBytes: MAX_HEADER, MaxQueryLength: MAX_QUERY, MaxRows: MAX_ROWS } },
        logLevel: 'error',
      });
    });
    after(() => server?.stop());
    const auth = () => ({ Authorization: `Bearer ${server.token()}` });

    it('RestAPI:MaxBodyBytes: a larger body answers 413 Request_TooLarge (declared or chunked); a body at the limit is read', async () => {
      const padded = (n: number) => {
        const head = '{"status":1,"onlineOrderFlag":true,"customerId":11000,"comment":"';
        return head + 'c'.repeat(n - head.length - 2) + '"}';
      };
      const over = await send(server.port, { method: 'POST', path: '/sales-order', headers: { ...auth(), 'Content-Type': 'application/json' }, body: padded(MAX_BODY + 1) });
      expectSaneAnswer({ method: 'POST', path: '/sales-order' }, over);
      expect([over.status, codesOf(over.text)]).to.deep.equal([413, ['Request_TooLarge']]);
      expectSecurityHeaders(over.headers, '413');

      const chunked = await sendRaw(server.port,
        `POST /sales-order HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth().Authorization}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        `${(MAX_BODY + 100).toString(16)}\r\n${padded(MAX_BODY + 100)}\r\n0\r\n\r\n`);
      const parsed = parseRaw(chunked);
      expect([parsed.status, codesOf(parsed.body)]).to.deep.equal([413, ['Request_TooLarge']]);

      const at = await send(server.port, { method: 'POST', path: '/sales-order', headers: { ...auth(), 'Content-Type': 'application/json' }, body: padded(MAX_BODY) });
      // The body is read and validated: its comment is over 128 characters.
      expect([at.status, codesOf(at.text)]).to.deep.equal([400, ['Input_TooLong']]);
    });

    describe('an answer before the body, on a connection that closes after it, reaches the client (was lost to EPIPE)', () => {
      // Well past what the kernel's socket buffers hold on their own (a few hundred kB were enough to hide the loss).
      const BODY = 6_000_000;
      const head = (headers: string) =>
        `POST /sales-order HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n${headers}\r\n`;

      for (const [what, headers, status, code] of [
        ['a declared body over the limit: 413', `Authorization: Bearer TOKEN\r\nContent-Length: ${BODY}\r\n`, 413, 'Request_TooLarge'],
        ['a chunked body growing over the limit: 413', `Authorization: Bearer TOKEN\r\nTransfer-Encoding: chunked\r\n`, 413, 'Request_TooLarge'],
        ['a body sent without credentials: 401', `Content-Length: ${BODY}\r\n`, 401, 'Security_Unauthenticated'],
      ] as const) {
        it(`${what}, to a client that reads only once it has sent everything`, async () => {
          const { answer, error } = await sendAllThenRead(server.port, head(headers.replace('TOKEN', server.token())), BODY);
          expect(answer, `nothing arrived (${error})`).to.not.equal('');
          const reply = parseRaw(answer);
          expect([reply.status, codesOf(reply.body)], answer.slice(0, 400)).to.deep.equal([status, [code]]);
          expectEnvelope(reply.body, status, what);
          expectSecurityHeaders(reply.headers, what);
          expect(reply.headers.connection).to.equal('close');
          expect(error, 'the whole body went out before the server closed').to.equal(undefined);
        });
      }

      it('a 413 to http.request streaming an oversized body with Connection: close', async () => {
        const reply = await new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/sales-order', agent: false,
            headers: { ...auth(), 'Content-Type': 'application/json', Connection: 'close', 'Content-Length': BODY } }, (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (c: string) => (text += c));
            res.once('end', () => resolve({ status: res.statusCode!, text }));
          });
          req.once('error', reject);
          const piece = Buffer.alloc(64 * 1024, 'b');
          let sent = 0;
          const pump = () => {
            while (sent < BODY) {
              const n = Math.min(piece.length, BODY - sent);
              sent += n;
              if (!req.write(piece.subarray(0, n))) return void req.once('drain', pump);
            }
            req.end();
          };
          pump();
        });
        expect([reply.status, codesOf(reply.text)]).to.deep.equal([413, ['Request_TooLarge']]);
        expectEnvelope(reply.text, 413, 'http.request');
      });
    });

    it('RestAPI:MaxHeaderBytes: a larger head answers 431 Request_HeadersTooLarge as the envelope, with the security headers', async () => {
      const answer = await sendRaw(server.port, `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(MAX_HEADER)}\r\n\r\n`);
      const reply = parseRaw(answer);
      expect(reply.status, answer.slice(0, 300)).to.equal(431);
      expectEnvelope(reply.body, 431, answer);
      expect(codesOf(reply.body)).to.deep.equal(['Request_HeadersTooLarge']);
      expect(reply.headers['content-type']).to.match(/^application\/json/);
      expectSecurityHeaders(reply.headers, '431');

      const under = parseRaw(await sendRaw(server.port, `GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Padding: ${'p'.repeat(MAX_HEADER - 200)}\r\n\r\n`));
      expect(under.status).to.equal(200);
    });

    for (const [what, bytes] of [
      ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
      ['a method with a space in it', 'G ET / HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['two Content-Length headers', 'POST /sales-order HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
      ['a header without a colon', 'GET / HTTP/1.1\r\nHost: x\r\nBroken\r\n\r\n'],
      ['a control character in the path', 'GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'],
    ] as const) {
      it(`malformed HTTP (${what}) answers 400 Request_Malformed as the envelope, with the security headers`, async () => {
        const answer = await sendRaw(server.port, Buffer.from(bytes, 'latin1'));
        const reply = parseRaw(answer);
        expect(reply.status, answer).to.equal(400);
        expectEnvelope(reply.body, 400, answer);
        expect(codesOf(reply.body)).to.deep.equal(['Request_Malformed']);
        expectSecurityHeaders(reply.headers, what);
      });
    }

    it('RestAPI:MaxQueryLength: a longer query string answers 414 Request_UriTooLong, on any path and before authentication', async () => {
      const long = `?customerName=${'q'.repeat(MAX_QUERY)}`;
      for (const [path, headers] of [['/sales-order', auth()], ['/sales-order', {}], ['/no-such-path', {}]] as const) {
        const req = { method: 'GET', path: path + long, headers };
        const reply = await send(server.port, req);
        expectSaneAnswer(req, reply);
        expect([reply.status, codesOf(reply.text)], path).to.deep.equal([414, ['Request_UriTooLong']]);
      }
      const exact = `?customerName=${'q'.repeat(MAX_QUERY - 'customerName='.length)}`;
      const fits = await send(server.port, { method: 'GET', path: `/sales-order${exact}`, headers: auth() });
      expect(fits.status, fits.text).to.equal(200);
    });

    it('RestAPI:MaxRows: take past it is capped, with a Warning Service_MaxRows; a take within it is not', async () => {
      for (const query of ['take=100', 'take=26', '']) {
        const reply = await server.call(`/sales-order?${query}`);
        expect(reply.status, query).to.equal(200);
        expect(reply.body.result, query).to.have.length(MAX_ROWS);
        expect(reply.body.messages.map((m) => [m.code, m.severity]), query).to.deep.equal([['Service_MaxRows', 'Warning']]);
      }
      const within = await server.call(`/sales-order?take=${MAX_ROWS}`);
      expect(within.body.result).to.have.length(MAX_ROWS);
      expect(within.body.messages).to.deep.equal([]);
    });
  });

  describe('RestAPI:RequestTimeoutSeconds and the security headers on every kind of answer', () => {
    let server: TestServer;
    const state = globalThis as { slowRouteFinished?: number; releaseSlowRoute?: () => void };
    before(async () => {
      state.slowRouteFinished = 0;
      const dir = routeFolder({
        'slow.js': `export const GET = route({ summary: 'slow', anonymous: true,
          handle: async () => { await new Promise((r) => { globalThis.releaseSlowRoute = r; }); globalThis.slowRouteFinished += 1; return new Output({ late: true }); } });\n`,
        'quick.js': `export const GET = route({ summary: 'quick', anonymous: true, handle: async () => new Output({ quick: true }) });\n`,
        'secured.js': `export const GET = route({ summary: 'secured', authenticated: true, handle: async () => new Output({ secret: true }) });\n`,
        'broken.js': `export const GET = route({ summary: 'throws', anonymous: true, handle: async () => { throw new Error('internal detail'); } });\n`,
      });
      server = await startTestServer({ routesDir: dir, config: { RestAPI: { RequestTimeoutSeconds: 1 } }, sampleData: false, logLevel: 'error' });
    });
    after(async () => {
      await server?.stop();
      state.releaseSlowRoute?.();
      delete state.slowRouteFinished;
      delete state.releaseSlowRoute;
    });

    it('an operation still running after RequestTimeoutSeconds answers 503 Request_Timeout; its late result is dropped', async () => {
      const reply = await send(server.port, { method: 'GET', path: '/slow' });
      // The answer came while the operation was still running: it only finishes when the test lets it.
      expect(state.slowRouteFinished).to.equal(0);
      expect(state.releaseSlowRoute).to.be.a('function');
      expectSaneAnswerOrServerError(reply, 503);
      expect(codesOf(reply.text)).to.deep.equal(['Request_Timeout']);
      expectSecurityHeaders(reply.headers, '503');
      // It finishes later without disturbing anything: the server answers as before.
      state.releaseSlowRoute!();
      await waitFor(() => state.slowRouteFinished === 1, 10_000);
      const quick = await send(server.port, { method: 'GET', path: '/quick' });
      expect(quick.status).to.equal(200);
      expect(server.logs.filter((l) => l.level === 'error')).to.deep.equal([]);
    });

    it('an operation within the timeout answers normally', async () => {
      const reply = await send(server.port, { method: 'GET', path: '/quick' });
      expect([reply.status, JSON.parse(reply.text)]).to.deep.equal([200, { result: { quick: true }, messages: [] }]);
    });

    it('security headers on 200, 401, 404, 405 and 500 answers', async () => {
      const cases: [string, string, number][] = [['GET', '/quick', 200], ['GET', '/secured', 401], ['GET', '/nowhere', 404], ['DELETE', '/quick', 405], ['GET', '/broken', 500]];
      for (const [method, path, status] of cases) {
        const reply = await send(server.port, { method, path });
        expect(reply.status, `${method} ${path}`).to.equal(status);
        expectSecurityHeaders(reply.headers, `${method} ${path} → ${status}`);
        expectEnvelope(reply.text, status, `${method} ${path}`);
      }
    });
  });

  describe('CORS with RestAPI:Cors:Origins', () => {
    let server: TestServer;
    const allowed = 'https://app.example.com';
    before(async () => {
      server = await startTestServer({ config: { RestAPI: { Cors: { Origins: [allowed] } } }, logLevel: 'error' });
    });
    after(() => server?.stop());
    const preflight = (origin: string) => send(server.port, {
      method: 'OPTIONS', path: '/sales-order/43659',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });

    it('a preflight from a listed origin is allowed: origin, credentials, methods', async () => {
      const reply = await preflight(allowed);
      expect(reply.status).to.be.within(200, 204);
      expect(reply.headers['access-control-allow-origin']).to.equal(allowed);
      expect(reply.headers['access-control-allow-credentials']).to.equal('true');
      expect(String(reply.headers['access-control-allow-methods']).split(/,\s*/)).to.include.members(['GET', 'PUT', 'POST', 'DELETE']);
      expect(String(reply.headers['access-control-allow-headers']).toLowerCase()).to.include('authorization');
      expect(String(reply.headers.vary)).to.match(/Origin/i);
    });

    it('an actual request from a listed origin exposes X-Request-Id, on success and on errors', async () => {
      for (const authorization of [`Bearer ${server.token()}`, undefined]) {
        const reply = await send(server.port, { method: 'GET', path: '/sales-order/43659', headers: { Origin: allowed, ...(authorization ? { Authorization: authorization } : {}) } });
        expect(reply.status).to.equal(authorization ? 200 : 401);
        expect(reply.headers['access-control-allow-origin']).to.equal(allowed);
        expect(reply.headers['access-control-allow-credentials']).to.equal('true');
        expect(String(reply.headers['access-control-expose-headers']).split(/,\s*/)).to.include('X-Request-Id');
        expectSecurityHeaders(reply.headers, 'CORS');
      }
    });

    it('an origin that is not listed gets no Access-Control-Allow-Origin, on the preflight or the request', async () => {
      for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.com', 'http://app.example.com', 'null']) {
        const pre = await preflight(origin);
        expect(pre.headers, origin).to.not.have.property('access-control-allow-origin');
        expect(pre.headers, origin).to.not.have.property('access-control-allow-credentials');
        const reply = await send(server.port, { method: 'GET', path: '/sales-order/43659', headers: { Origin: origin, Authorization: `Bearer ${server.token()}` } });
        expect(reply.headers, origin).to.not.have.property('access-control-allow-origin');
      }
    });
  });
});

/** Like expectSaneAnswer, for the one place a 5xx is the expected answer. */
function expectSaneAnswerOrServerError(reply: RawReply, status: number) {
  expect(reply.status, reply.text).to.equal(status);
  expect(reply.headers['x-request-id']).to.be.a('string');
  expectEnvelope(reply.text, status, reply.text);
}

async function waitFor(condition: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
