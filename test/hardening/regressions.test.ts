import { randomBytes } from 'node:crypto';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { Agent, request } from 'node:http';
import { expect } from 'chai';
import { array } from 'superstruct';
import { text, validateInput } from 'restlayer';
import { expectError, expectErrors, expectOk } from '../support/api.js';
import { routeFolder } from '../support/route-fixtures.js';
import { type Envelope, type Reply, type TestServer, startTestServer } from '../support/server.js';
import { removeTempDirs } from '../support/temp.js';
import { FAST_HASH } from '../support/users.js';
import {
  expectEnvelope, expectNoPollution, expectSaneAnswer, prototypeSnapshot, salesOrderFingerprint, send,
} from './hostile.js';
import { describeStores } from '../support/stores.js';

/** One regression test (or a few) per defect the hardening suites found; each failed before its fix. */
describeStores('hardening regressions', () => {
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
    const before = await salesOrderFingerprint(server.infrastructure.storage);
    const reply = await post('/sales-order', Buffer.from('{"status":1}'), { 'Content-Encoding': 'br' });
    expect(reply.status, reply.text).to.equal(400);
    expect(JSON.parse(reply.text).messages.map((m: { code: string }) => m.code)).to.deep.equal(['Request_MalformedJson']);
    // A body that does decompress still works.
    const good = await post('/sales-order', brotliCompressSync('{"status":1,"onlineOrderFlag":true,"customerId":11000}'), { 'Content-Encoding': 'br' });
    expect(good.status, good.text).to.equal(201);
    expect(await salesOrderFingerprint(server.infrastructure.storage)).to.not.equal(before);
  });

  describe('input edge cases (were stored wrong, silently taken, or called malformed JSON)', () => {
    const auth = () => ({ 'Content-Type': 'application/json', Authorization: `Bearer ${server.token()}` });
    /** Sends `text` byte for byte: the JSON escapes (\\ud800) and repeated keys must reach the server as written. */
    const sendJson = async (method: string, path: string, text: string): Promise<Reply> => {
      const reply = await send(server.port, { method, path, headers: auth(), body: text });
      const headers = new Headers();
      for (const [name, value] of Object.entries(reply.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      return { status: reply.status, text: reply.text, headers, body: JSON.parse(reply.text) as Envelope };
    };
    const order = (extra: string) => `{"status":1,"onlineOrderFlag":true,"customerId":11000${extra}}`;

    it('refuses a date whose offset takes it past 9999 or before year 1 (was stored as +010000-... and sorted first), in bodies and criteria', async () => {
      const before = await salesOrderFingerprint(server.infrastructure.storage);
      expectError(await sendJson('POST', '/sales-order', order(',"dueDate":"9999-12-31T23:00:00-02:00"')), 400, 'Input_OutOfRange', 'dueDate');
      expectError(await sendJson('PUT', '/sales-order/43700', '{"status":1,"onlineOrderFlag":true,"shipDate":"9999-12-31T23:59:59.999-00:01"}'), 400, 'Input_OutOfRange', 'shipDate');
      expectError(await sendJson('PUT', '/sales-order/43700', '{"status":1,"onlineOrderFlag":true,"shipDate":"0001-01-01T00:59:59+01:00"}'), 400, 'Input_OutOfRange', 'shipDate');
      expectError(await sendJson('POST', '/sales-order', order(',"dueDate":"0000-12-31"')), 400, 'Input_OutOfRange', 'dueDate');
      expect(await salesOrderFingerprint(server.infrastructure.storage), 'nothing was written').to.equal(before);
      for (const query of ['orderDate.operator=GT&orderDate=9999-12-31T22:00:00-05:00', 'orderDate=0000-06-01&orderDate=2024-01-01', 'shipDate=10000-01-01']) {
        const reply = await server.call(`/sales-order?${query}`);
        expect(reply.status, `${query}: ${reply.text}`).to.equal(400);
        expect(reply.body.messages.map((m) => [m.code, m.property]), query).to.deep.equal([[query.startsWith('shipDate') ? 'Input_UnknownProperty' : 'Input_OutOfRange', query.split(/[.=]/)[0]]]);
      }

      // The limits themselves are dates: the last instant is stored, read back, and sorts after every other date.
      const last = '9999-12-31T23:59:59.999Z';
      const put = await sendJson('PUT', '/sales-order/43700', '{"status":1,"onlineOrderFlag":true,"dueDate":"9999-12-31T21:59:59.999-02:00"}');
      expect(put.status, put.text).to.equal(200);
      expect((await server.call('/sales-order/43700')).body.result.dueDate).to.equal(last);
      const latest = await server.call('/sales-order?sort[0].fieldName=dueDate&sort[0].sortDirection=Descending&take=1');
      expect(latest.body.result.map((o: { salesOrderId: number; dueDate: string }) => [o.salesOrderId, o.dueDate])).to.deep.equal([[43700, last]]);
      expect((await server.call(`/sales-order?dueDate.operator=GE&dueDate=${last}`)).body.result.map((o: { salesOrderId: number }) => o.salesOrderId)).to.deep.equal([43700]);
      const all = await server.call('/sales-order?take=0&getTotalCount=true');
      const between = await server.call(`/sales-order?orderDate=0001-01-01T00:00:00Z&orderDate=${last}&take=0&getTotalCount=true`);
      expect([between.status, between.body.totalCount]).to.deep.equal([200, all.body.totalCount]);
    });

    it('refuses text that is not well-formed Unicode (a lone surrogate was stored as U+FFFD), wherever text is taken', async () => {
      const before = await salesOrderFingerprint(server.infrastructure.storage);
      for (const comment of ['a\\ud800b', '\\udc00', '\\ude00\\ud83d', 'x\\ud83d']) {
        expectError(await sendJson('POST', '/sales-order', order(`,"comment":"${comment}"`)), 400, 'Input_InvalidValue', 'comment');
      }
      expectError(await sendJson('PUT', '/sales-order/43701', '{"status":1,"onlineOrderFlag":true,"purchaseOrderNumber":"PO\\udbff"}'), 400, 'Input_InvalidValue', 'purchaseOrderNumber');
      expect(await salesOrderFingerprint(server.infrastructure.storage), 'nothing was written').to.equal(before);
      expectError(await server.call('/auth/jwt', { method: 'POST', token: null, body: '{"userName":"al\\ud800ice","password":"x"}' }), 400, 'Input_InvalidValue', 'userName');

      // U+10FFFF bounds the starts-with ranges: text holding it is refused, in bodies and criteria alike.
      expectError(await sendJson('POST', '/sales-order', order(',"comment":"a\\udbff\\udfff"')), 400, 'Input_InvalidValue', 'comment');
      expectError(await server.call(`/sales-order?salesOrderNumber=${encodeURIComponent('SO\u{10FFFF}')}&salesOrderNumber.operator=SW`), 400, 'Input_InvalidValue', 'salesOrderNumber');
      expect(await salesOrderFingerprint(server.infrastructure.storage), 'nothing was written').to.equal(before);

      // A surrogate pair is one character (U+1F600): taken and read back as sent.
      const put = await sendJson('PUT', '/sales-order/43701', '{"status":1,"onlineOrderFlag":true,"comment":"smile \\ud83d\\ude00"}');
      expect(put.status, put.text).to.equal(200);
      expect((await server.call('/sales-order/43701')).body.result.comment).to.equal('smile \u{1F600}');
    });

    it('refuses two keys naming one property, in any case, with no other message about it (the last one was taken)', async () => {
      const before = await salesOrderFingerprint(server.infrastructure.storage);
      for (const body of [order(',"STATUS":3'), order(',"status":3'), '{"status":"x","Status":2,"onlineOrderFlag":true,"customerId":11000}']) {
        expectError(await sendJson('POST', '/sales-order', body), 400, 'Input_Duplicate', 'status');
      }
      expectError(await sendJson('PUT', '/sales-order/43702', '{"status":1,"onlineOrderFlag":true,"comment":"a","Comment":"b"}'), 400, 'Input_Duplicate', 'comment');
      // Reported with every other problem of the body.
      const several = await sendJson('POST', '/sales-order', '{"status":1,"status":2,"comment":"\\ud800","x":1}');
      expectErrors(several, 400, ['Input_Duplicate', 'Input_Required', 'Input_Required', 'Input_InvalidValue', 'Input_UnknownProperty']);
      expect(several.body.messages.map((m) => m.property).sort()).to.deep.equal(['comment', 'customerId', 'onlineOrderFlag', 'status', 'x']);
      expect(await salesOrderFingerprint(server.infrastructure.storage), 'nothing was written').to.equal(before);
      // In a query string a repeated name is a list of values, as the contract says: not ambiguous.
      const listed = await server.call('/sales-order?status=1&STATUS=5&take=50');
      expectOk(listed);
      expect([...new Set(listed.body.result.map((o: { status: number }) => o.status))].sort()).to.deep.equal([1, 5]);
    });

    it('refuses __proto__, constructor and prototype as property names, named on the property (was 400 Request_MalformedJson)', async () => {
      const prototypes = prototypeSnapshot();
      const before = await salesOrderFingerprint(server.infrastructure.storage);
      for (const key of ['__proto__', 'constructor', 'prototype', 'Constructor']) {
        expectError(await sendJson('POST', '/sales-order', order(`,"${key}":{"polluted":"yes","status":2}`)), 400, 'Input_ReservedName', key);
      }
      expectError(await sendJson('POST', '/auth/jwt', '{"userName":"alice","password":"x","__proto__":{"isAdmin":true}}'), 400, 'Input_ReservedName', '__proto__');
      expect(await salesOrderFingerprint(server.infrastructure.storage), 'nothing was written').to.equal(before);
      expectNoPollution(prototypes);
    });

    describe('at any depth of a body (a route with nested objects and lists)', () => {
      let nested: TestServer;
      before(async () => {
        const fields = import.meta.resolve('restlayer');
        nested = await startTestServer({
          routesDir: routeFolder({
            'nested.js': `import { array, date, maybe } from '${fields}';
              const Line = model({ note: text(), since: maybe(date()) });
              export const POST = route({ summary: 'nested', anonymous: true,
                body: model({ customer: model({ name: text(), since: date() }), lines: array(Line) }),
                handle: async ({ body }) => new Output(body) });\n`,
          }),
          sampleData: false,
          logLevel: 'error',
        });
      });
      after(async () => {
        await nested?.stop();
        removeTempDirs();
      });

      it('reports each problem on its own path; a clean body of the same shape is taken', async () => {
        const prototypes = prototypeSnapshot();
        const reply = await send(nested.port, {
          method: 'POST', path: '/nested', headers: { 'Content-Type': 'application/json' },
          body: '{"customer":{"name":"a","NAME":"b","since":"2024-01-01"},"lines":[{"note":"ok"},{"note":"\\ud800","since":"9999-12-31T23:00:00-01:00"},'
            + '{"note":"x","note":"y"},{"note":"z","__proto__":{"polluted":1}},{"note":"w","since":"2024-01-01","SINCE":"2024-01-02"}]}',
        });
        expect(reply.status, reply.text).to.equal(400);
        const messages = (JSON.parse(reply.text) as { messages: { code: string; property: string }[] }).messages;
        expect(messages.map((m) => `${m.property} ${m.code}`).sort()).to.deep.equal([
          'customer.name Input_Duplicate', 'lines[1].note Input_InvalidValue', 'lines[1].since Input_OutOfRange',
          'lines[2].note Input_Duplicate', 'lines[3].__proto__ Input_ReservedName', 'lines[4].since Input_Duplicate',
        ]);
        expectNoPollution(prototypes);

        const clean = await send(nested.port, {
          method: 'POST', path: '/nested', headers: { 'Content-Type': 'application/json' },
          body: '{"Customer":{"name":"a","since":"9999-12-31T23:59:59.999Z"},"lines":[{"note":"\\ud83d\\ude00"},{"NOTE":"b","since":"0001-01-01T01:00:00+01:00"}]}',
        });
        expect(clean.status, clean.text).to.equal(200);
        expect(JSON.parse(clean.text).result).to.deep.equal({
          customer: { name: 'a', since: '9999-12-31T23:59:59.999Z' }, lines: [{ note: '\u{1F600}' }, { note: 'b', since: '0001-01-01T00:00:00.000Z' }],
        });
      });
    });
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
