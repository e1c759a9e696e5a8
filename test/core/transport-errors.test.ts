import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { countOrders, expectError, readOrder } from '../support/api.js';
import type { Reply } from '../support/server.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const stackTrace = /\n\s+at |\bat .*\.(js|ts):\d+|node_modules|\/work\//;

describeStores('transport-level errors (contract part 2)', () => {
  let server: TestServer;
  const seen: Reply[] = [];
  const call = async (...args: Parameters<TestServer['call']>) => {
    const reply = await server.call(...args);
    seen.push(reply);
    return reply;
  };
  const put43659 = (body: string, contentType = 'application/json') =>
    call('/sales-order/43659', { method: 'PUT', body, headers: { 'Content-Type': contentType } });

  before(async () => {
    server = await startTestServer({ config: { RestAPI: { MaxBodyBytes: 1000 } } });
  });
  after(() => server.stop());

  describe('malformed JSON', () => {
    for (const body of ['{', '{"status": 5,}', "{'status': 5}", '{"status": 5} trailing', 'nul']) {
      it(`answers 400 Request_MalformedJson to ${JSON.stringify(body)}`, async () => {
        expectError(await put43659(body), 400, 'Request_MalformedJson');
      });
    }

    it('writes nothing', async () => {
      const before = await countOrders(server);
      expectError(await call('/sales-order', { method: 'POST', body: '{"customerId": 11000, "status": 1, "onlineOrderFlag": true' }), 400, 'Request_MalformedJson');
      expect(await countOrders(server)).to.equal(before);
      expect((await readOrder(server, 43659)).revisionNumber).to.equal(1);
    });
  });

  describe('body over RestAPI:MaxBodyBytes', () => {
    it('answers 413 Request_TooLarge when Content-Length is over the limit', async () => {
      const body = JSON.stringify({ status: 5, onlineOrderFlag: false, comment: 'x'.repeat(1000) });
      expectError(await put43659(body), 413, 'Request_TooLarge');
    });

    it('answers 413 Request_TooLarge to a chunked body that grows over the limit', async () => {
      const url = new URL(server.url + '/sales-order/43659');
      const [status, text] = await new Promise<[number, string]>((resolve, reject) => {
        const req = request({
          host: url.hostname, port: url.port, path: url.pathname, method: 'PUT',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token()}`, 'Transfer-Encoding': 'chunked' },
        }, (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve([res.statusCode!, data]));
        });
        req.on('error', reject);
        req.write('{"status": 5, "onlineOrderFlag": false, "comment": "');
        for (let i = 0; i < 10; i++) req.write('y'.repeat(200));
        req.end('"}');
      });
      expect(status).to.equal(413);
      const body = JSON.parse(text) as Reply['body'];
      expect(body.messages.map((m) => m.code)).to.deep.equal(['Request_TooLarge']);
      expect(body).to.not.have.property('result');
    });

    it('accepts a body just under the limit (it reaches validation instead)', async () => {
      const body = JSON.stringify({ status: 5, onlineOrderFlag: false, comment: 'z'.repeat(900) });
      expect(body.length).to.be.within(900, 1000);
      expectError(await put43659(body), 400, 'Input_TooLong', 'comment');
    });

    it('wrote nothing', async () => {
      expect((await readOrder(server, 43659)).revisionNumber).to.equal(1);
    });
  });

  describe('content type', () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      it(`answers 415 Request_UnsupportedMediaType to ${type}`, async () => {
        expectError(await put43659('{"status": 5, "onlineOrderFlag": false}', type), 415, 'Request_UnsupportedMediaType');
      });
    }

    it('accepts application/json with a charset and +json types', async () => {
      const a = await put43659('{"status": 5, "onlineOrderFlag": false}', 'application/json; charset=utf-8');
      expect(a.status, a.text).to.equal(200);
      const b = await put43659('{"status": 5, "onlineOrderFlag": false}', 'application/merge-patch+json');
      expect(b.status, b.text).to.equal(200);
      expect((await readOrder(server, 43659)).revisionNumber).to.equal(3);
    });
  });

  describe('compressed bodies', () => {
    const send = async (body: Buffer | string, encoding: string): Promise<Reply> => {
      const res = await fetch(`${server.url}/sales-order/43659`, {
        method: 'PUT', body: typeof body === 'string' ? body : new Uint8Array(body), headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding, Authorization: `Bearer ${server.token()}` },
      });
      const text = await res.text();
      const reply = { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Reply['body'] };
      seen.push(reply);
      return reply;
    };

    it('reads a gzip body', async () => {
      const reply = await send(gzipSync(JSON.stringify({ status: 5, onlineOrderFlag: false, comment: 'zipped' })), 'gzip');
      expect(reply.status, reply.text).to.equal(200);
      expect((await readOrder(server, 43659)).comment).to.equal('zipped');
    });

    it('answers 400 Request_MalformedJson (not 500) to a body that does not decompress', async () => {
      expectError(await send('{"status": 5, "onlineOrderFlag": false}', 'gzip'), 400, 'Request_MalformedJson');
      expectError(await send('not deflated', 'deflate'), 400, 'Request_MalformedJson');
    });

    it('answers 413 Request_TooLarge when the decompressed body is over the limit', async () => {
      const small = gzipSync(JSON.stringify({ status: 5, onlineOrderFlag: false, comment: 'x'.repeat(5000) }));
      expect(small.length).to.be.below(1000);
      expectError(await send(small, 'gzip'), 413, 'Request_TooLarge');
    });

    it('answers 415 Request_UnsupportedMediaType to an unsupported Content-Encoding', async () => {
      expectError(await send('{"status": 5, "onlineOrderFlag": false}', 'compress'), 415, 'Request_UnsupportedMediaType');
    });
  });

  describe('unknown path', () => {
    for (const [method, path] of [['GET', '/no-such-route'], ['POST', '/sales-orders'], ['DELETE', '/sales-order/1/lines'], ['GET', '/lookup-tables'], ['GET', '/']] as const) {
      it(`answers 404 Route_NotFound to ${method} ${path}, authenticated or not`, async () => {
        for (const token of [undefined, null, 'not-a-token']) {
          const reply = await call(path, { method, token });
          expectError(reply, 404, 'Route_NotFound');
          expect(reply.headers.get('WWW-Authenticate')).to.equal(null);
        }
      });
    }
  });

  describe('wrong verb', () => {
    const cases: [string, string, string[]][] = [
      ['PATCH', '/sales-order', ['GET', 'POST']],
      ['DELETE', '/sales-order', ['GET', 'POST']],
      ['POST', '/sales-order/43659', ['GET', 'PUT', 'DELETE']],
      ['PUT', '/lookup-table/operators', ['GET', 'DELETE']],
      ['POST', '/health/live', ['GET']],
    ];
    for (const [method, path, allowed] of cases) {
      it(`answers 405 Route_MethodNotAllowed with an Allow header to ${method} ${path}`, async () => {
        const reply = await call(path, { method, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
        expectError(reply, 405, 'Route_MethodNotAllowed');
        const allow = reply.headers.get('Allow')!.split(',').map((v) => v.trim());
        expect(allow).to.include.members(allowed);
        expect(allow).to.not.include(method);
      });
    }
  });

  describe('missing credentials', () => {
    it('answers 401 Security_Unauthenticated with WWW-Authenticate to a secured route', async () => {
      const reply = await call('/sales-order', { token: null });
      expectError(reply, 401, 'Security_Unauthenticated');
      expect(reply.body.messages[0].type).to.equal('Security');
      expect(reply.headers.get('WWW-Authenticate')).to.match(/^Bearer/);
    });
  });

  // Runs last (nested describes run in order): checks every answer the tests above received.
  describe('every answer above', () => {
    it('was an envelope without a stack trace', () => {
      expect(seen.length).to.be.greaterThan(30);
      for (const reply of seen) {
        expect(reply.text).to.not.match(stackTrace);
        expect(reply.body.messages).to.be.an('array');
      }
    });
  });
});
