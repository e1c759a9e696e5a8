import { randomBytes } from 'node:crypto';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { Agent, request } from 'node:http';
import { expect } from 'chai';
import { array } from 'superstruct';
import { createErrorParser } from '../../lib/envelope/error-parser.js';
import { text } from '../../lib/validation/fields.js';
import { validateInput } from '../../lib/validation/validate.js';
import { expectError } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH } from '../support/users.js';
import { expectEnvelope, expectSaneAnswer, salesOrderFingerprint, send } from './hostile.js';

/** One regression test (or a few) per defect the hardening suites found; each failed before its fix. */
describe('hardening regressions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { ...FAST_HASH }, logLevel: 'error' });
  });
  after(async () => {
    const unhandled = server.logs.filter((l) => l.level === 'error');
    await server?.stop();
    // An after hook (not afterEach), so one defect does not stop the other tests from running.
    expect(unhandled, 'unhandled exceptions were logged').to.deep.equal([]);
  });

  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    send(server.port, { method: 'POST', path, body, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token()}`, ...headers } });

  describe('bodies superstruct could not print (was 500 RangeError / TypeError)', () => {
    const deep = (open: string, close: string, depth: number, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);

    for (const [what, body] of [
      ['an array nested 10,000 levels', deep('[', ']', 10_000, '')],
      ['an object nested 10,000 levels', deep('{"a":', '}', 10_000)],
      ['an unknown property holding arrays nested 10,000 levels', `{"x":${deep('[', ']', 10_000, '')}}`],
      ['a known property holding arrays nested 10,000 levels', `{"status":${deep('[', ']', 10_000, '')}}`],
    ] as const) {
      it(`answers 400 Request_TooDeep to ${what}`, async () => {
        const reply = await post('/sales-order', body);
        expect(reply.status, reply.text).to.equal(400);
        expect(JSON.parse(reply.text).messages.map((m: { code: string }) => m.code)).to.deep.equal(['Request_TooDeep']);
      });
    }

    it('accepts nesting up to the limit (it reaches validation)', async () => {
      const reply = await post('/sales-order', `{"x":${deep('[', ']', 62, '')}}`);
      expect(reply.status, reply.text).to.equal(400);
      expect(JSON.parse(reply.text).messages.map((m: { code: string }) => m.code)).to.include('Input_UnknownProperty');
    });

    it('reports an unknown property whose value has a toString of its own as unknown, not as a 500', async () => {
      for (const path of ['/sales-order', '/auth/jwt', '/auth/logout']) {
        const reply = await post(path, '{"x":{"toString":1,"valueOf":1},"y":[{"toString":1}]}');
        expect(reply.status, `${path}: ${reply.text}`).to.equal(400);
        const { messages } = JSON.parse(reply.text) as { messages: { code: string; property?: string }[] };
        expect(messages.filter((m) => m.code === 'Input_UnknownProperty').map((m) => m.property).sort(), path).to.deep.equal(['x', 'y']);
      }
    });

    it('answers a body that is an array of such objects with one "must be a JSON object"', async () => {
      const reply = await post('/sales-order', '[{"toString":1},[[[]]]]');
      expect(reply.status, reply.text).to.equal(400);
      expect(JSON.parse(reply.text).messages.map((m: { code: string }) => m.code)).to.deep.equal(['Input_InvalidType']);
    });

    it('validateInput reports a value it cannot print as Input_Invalid instead of throwing', () => {
      const hostile = { toString: 1, valueOf: 1 };
      const result = validateInput(array(text()), hostile, ['roles']);
      expect(result.ok).to.equal(false);
      if (!result.ok) expect(result.messages.map((m) => [m.code, m.property])).to.deep.equal([['Input_Invalid', 'roles']]);
    });
  });

  describe('values PostgreSQL cannot take (was 500 there: "out of range for type integer", "invalid byte sequence 0x00")', () => {
    it('refuses ids and numbers past SQL integer with 400 Input_OutOfRange, before any query', async () => {
      for (const method of ['GET', 'DELETE'] as const) {
        expectError(await server.call('/sales-order/2147483648', { method }), 400, 'Input_OutOfRange', '_salesOrderId');
      }
      expectError(await server.call('/sales-order/2147483647'), 404, 'Entity_NotFound');
      expectError(await server.call('/sales-order/43659', { method: 'PUT', body: { status: 1, onlineOrderFlag: true, revisionNumber: 2147483648 } }), 400, 'Input_OutOfRange', 'revisionNumber');
      expectError(await server.call('/sales-order', { method: 'POST', body: { status: 1, onlineOrderFlag: true, customerId: 9007199254740991 } }), 400, 'Input_OutOfRange', 'customerId');
      expectError(await server.call('/sales-order', { method: 'POST', body: { status: -2147483649, onlineOrderFlag: true, customerId: 11000 } }), 400, 'Input_OutOfRange', 'status');
      for (const query of ['status=2147483648', 'territoryId.operator=GT&territoryId=-9007199254740991', 'salesPersonId=1&salesPersonId=99999999999']) {
        const reply = await server.call(`/sales-order?${query}`);
        expect(reply.status, reply.text).to.equal(400);
        expect(reply.body.messages.map((m) => m.code), reply.text).to.deep.equal(['Input_OutOfRange']);
      }
    });

    it('refuses text with U+0000 with 400 Input_InvalidValue: bodies, criteria, route parameters, logins', async () => {
      expectError(await server.call('/sales-order', { method: 'POST', body: { status: 1, onlineOrderFlag: true, customerId: 11000, comment: 'a\u0000b' } }), 400, 'Input_InvalidValue', 'comment');
      expectError(await server.call('/sales-order?customerName.operator=CN&customerName=a%00b'), 400, 'Input_InvalidValue', 'customerName');
      expectError(await server.call('/lookup-table/a%00b'), 400, 'Input_InvalidValue', 'type');
      expectError(await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'x\u0000', password: 'y' } }), 400, 'Input_InvalidValue', 'userName');
    });
  });

  it('answers OPTIONS with the envelope and Allow (was 200 with an empty body)', async () => {
    const reply = await send(server.port, { method: 'OPTIONS', path: '/sales-order/43659' });
    expectSaneAnswer({ method: 'OPTIONS', path: '/sales-order/43659' }, reply);
    expect(reply.status).to.equal(200);
    expect(JSON.parse(reply.text)).to.deep.equal({ messages: [] });
    expect(String(reply.headers.allow).split(/,\s*/)).to.include.members(['GET', 'PUT', 'DELETE']);
  });

  it('answers a Brotli body that does not decompress with 400 Request_MalformedJson (was 500 "Decompression failed")', async () => {
    const before = await salesOrderFingerprint(server.services.storage);
    const reply = await post('/sales-order', Buffer.from('{"status":1}'), { 'Content-Encoding': 'br' });
    expect(reply.status, reply.text).to.equal(400);
    expect(JSON.parse(reply.text).messages.map((m: { code: string }) => m.code)).to.deep.equal(['Request_MalformedJson']);
    // A body that does decompress still works.
    const good = await post('/sales-order', brotliCompressSync('{"status":1,"onlineOrderFlag":true,"customerId":11000}'), { 'Content-Encoding': 'br' });
    expect(good.status, good.text).to.equal(201);
    expect(await salesOrderFingerprint(server.services.storage)).to.not.equal(before);
  });

  it("maps SQLite's extended busy and locked codes to 503 Storage_Unavailable (SQLITE_BUSY_SNAPSHOT was a 500)", () => {
    const parse = createErrorParser({ production: true });
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_LOCKED', 'SQLITE_LOCKED_SHAREDCACHE']) {
      const parsed = parse(Object.assign(new Error('database is locked'), { code }));
      expect([parsed.unhandled, parsed.messages.map((m) => [m.code, m.status])], code).to.deep.equal([false, [['Storage_Unavailable', 503]]]);
    }
    expect(parse(Object.assign(new Error('constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })).unhandled).to.equal(true);
  });

  describe('a keep-alive connection after a body the server gave up on (was reset: the next request got ECONNRESET)', () => {
    /** Sends on a one-socket keep-alive agent, so the second request reuses the first one's connection if offered. */
    function onAgent(agent: Agent, method: string, path: string, headers: Record<string, string>, chunks: (string | Buffer)[]) {
      return new Promise<{ status: number; connection?: string; text: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, method, path, headers, agent }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.once('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, text }));
        });
        req.once('error', reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    }

    const cases: [string, Record<string, string>, (string | Buffer)[], number][] = [
      ['a 200 kB body sent as deflate that is not', { 'Content-Encoding': 'deflate' }, ['q'.repeat(200_000)], 400],
      // Inflates past the limit within its first few kB; 400 kB of it are still unread then.
      ['a gzip body that inflates past the limit early', { 'Content-Encoding': 'gzip' }, [gzipSync(Buffer.concat([Buffer.alloc(2_000_000, 'a'), randomBytes(400_000)]))], 413],
      ['a chunked body growing past the limit', { 'Transfer-Encoding': 'chunked' }, Array.from({ length: 20 }, () => 'w'.repeat(100_000)), 413],
    ];
    for (const [what, headers, chunks, status] of cases) {
      it(`answers ${status} to ${what}, and the next request on the agent succeeds`, async () => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          const first = await onAgent(agent, 'POST', '/sales-order', { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token()}`, ...headers }, chunks);
          expect(first.status, first.text).to.equal(status);
          expectEnvelope(first.text, first.status, what);
          expect(first.connection).to.equal('close');
          const next = await onAgent(agent, 'GET', '/health/live', {}, []);
          expect(next.status, next.text).to.equal(200);
        } finally {
          agent.destroy();
        }
      });
    }
  });
});
