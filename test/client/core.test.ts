import { expect } from 'chai';
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CookieJar, HttpCore, RestClient, apiUrl, jwtClaims, mergePatch, remoteApiFromConfig, reviveDates } from 'restlayer/client';
import { loadConfig } from 'restlayer';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';
import { freePort } from '../support/http.js';
import { recordingFetch } from './support.js';

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** The relative imports of a compiled module (and the layer's own package name), followed to the end; answers every module and every bare import. */
function importGraph(entry: string): { modules: string[]; bare: string[] } {
  const modules = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[;\s])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      // The layer by its package name (a proxy imports restlayer/client): followed into the files it names.
      else if (spec === 'restlayer' || spec.startsWith('restlayer/')) visit(fileURLToPath(import.meta.resolve(spec)));
      else bare.add(spec);
    }
  };
  visit(entry);
  return { modules: [...modules], bare: [...bare] };
}

describe('client: core', () => {
  it('makes its settings from the loaded configuration (RemoteApi:*), environment variables included', () => {
    const { config } = loadConfig({
      env: { NODE_ENV: 'test', RemoteApi__BaseAddress: 'https://orders.example.com', RemoteApi__BasePath: '/api', RemoteApi__Authorization: 'false', RemoteApi__ClientName: 'crm' },
    });
    expect(remoteApiFromConfig(config)).to.deep.equal({
      ClientName: 'crm', BaseAddress: 'https://orders.example.com', BasePath: '/api', Authorization: false, RefreshTokenPath: 'auth/refresh',
    });
    expect(remoteApiFromConfig(loadConfig({ env: { NODE_ENV: 'test' } }).config).Authorization).to.equal(true);
  });

  it('builds URLs from BaseAddress, BasePath and the path, whatever slashes they carry', () => {
    for (const [address, path, expected] of [
      ['http://h:1', '', 'http://h:1/sales-order'], ['http://h:1/', '/api', 'http://h:1/api/sales-order'], ['http://h:1', 'api/', 'http://h:1/api/sales-order'],
    ]) expect(apiUrl({ BaseAddress: address, BasePath: path }, '/sales-order')).to.equal(expected);
    const http = new HttpCore({ ClientName: 'x', BaseAddress: 'http://h:1', BasePath: '/api', Authorization: true, RefreshTokenPath: 'auth/refresh' });
    expect(http.url({ path: '/lookup-table/{type}', params: { type: 'a b/c' }, query: new URLSearchParams({ x: '1' }) })).to.equal('http://h:1/api/lookup-table/a%20b%2Fc?x=1');
    expect(() => http.url({ path: '/sales-order/{_salesOrderId}' })).to.throw(/missing path parameter _salesOrderId/);
  });

  it('answers an unreachable server as an Output with an External error, not a throw', async () => {
    const port = await freePort();
    const proxy = new SalesOrderProxy(new RestClient({ BaseAddress: `http://127.0.0.1:${port}` }));
    const output = await proxy.read(43659);
    expect(output.result).to.equal(undefined);
    expect(output.messages).to.have.length(1);
    expect(output.messages[0]).to.include({ code: 'Client_NetworkError', severity: 'Error', type: 'External' });
    expect(output.messages[0].message).to.contain(`127.0.0.1:${port}`);
  });

  it('reads an answer that is not the envelope (a proxy error page) as an Output with an External error', async () => {
    for (const response of [new Response('<html>Bad gateway</html>', { status: 502 }), json({ result: 1 }), new Response('', { status: 500 })]) {
      const client = new RestClient({ BaseAddress: 'http://h:1' }, { fetch: async () => response.clone() });
      const output = await new SalesOrderProxy(client).delete(1).catch((e: Error) => expect.fail(e.message));
      expect(output.messages.map((m) => [m.code, m.type])).to.deep.equal([['Client_InvalidResponse', 'External']]);
    }
  });

  it('answers result, messages and totalCount of the envelope, dates revived', async () => {
    const client = new RestClient({ BaseAddress: 'http://h:1' }, {
      fetch: async () => json({ result: [{ salesOrderId: 1, orderDate: '2024-05-31T00:00:00.000Z', customerName: '2024-05-31T00:00:00.000Z' }], messages: [{ code: 'Service_MaxRows', message: 'cut', severity: 'Warning', type: 'Message' }], totalCount: 7 }),
    });
    client.tokens!.setTokens({ accessToken: 'a.b.c' });
    const output = await new SalesOrderProxy(client).readList({});
    expect(output.totalCount).to.equal(7);
    expect(output.messages[0].code).to.equal('Service_MaxRows');
    expect(output.result![0].orderDate).to.be.instanceOf(Date);
    expect(output.result![0].orderDate.toISOString()).to.equal('2024-05-31T00:00:00.000Z');
    // The proxy names its date properties: a text that looks like a date stays text.
    expect(output.result![0].customerName).to.equal('2024-05-31T00:00:00.000Z');
  });

  it('revives ISO date-times with an offset at any depth in auto mode, and nothing else', () => {
    const revived = reviveDates({ a: '2024-05-31T10:00:00Z', b: ['2024-05-31T10:00:00.123+02:00'], c: { d: '2024-05-31' }, e: 'x', f: 3, g: '2024-13-45T99:00:00Z' }) as Record<string, unknown>;
    expect(revived.a).to.be.instanceOf(Date);
    expect((revived.b as unknown[])[0]).to.be.instanceOf(Date);
    expect((revived.c as Record<string, unknown>).d).to.equal('2024-05-31');
    expect(revived.e).to.equal('x');
    expect(revived.g).to.equal('2024-13-45T99:00:00Z');
  });

  it('reads exp and iat from a JWT payload (base64url, any text), and nothing from a malformed one', () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    expect(jwtClaims(`${part({ alg: 'HS256' })}.${part({ exp: 2000, iat: 1000, name: 'Zoë ✓ ~~~???' })}.sig`)).to.deep.equal({ exp: 2000, iat: 1000 });
    expect(jwtClaims('garbage')).to.deep.equal({});
  });

  it('keeps cookies of its own origin by name, honouring Max-Age, Expires and Secure', () => {
    const jar = new CookieJar('http://h:1');
    const headers = new Headers();
    headers.append('Set-Cookie', 'restlayer.sid=abc; path=/; httponly; samesite=lax');
    headers.append('Set-Cookie', 'restlayer.sid.sig=xyz; path=/; httponly');
    headers.append('Set-Cookie', 'secure=1; Secure');
    jar.store('http://h:1/auth/cookie', headers);
    expect(jar.header('http://h:1/sales-order')).to.equal('restlayer.sid=abc; restlayer.sid.sig=xyz');
    expect(jar.header('http://other:1/')).to.equal(undefined);
    const gone = new Headers();
    gone.append('Set-Cookie', 'restlayer.sid=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT');
    gone.append('Set-Cookie', 'restlayer.sid.sig=; Max-Age=0');
    jar.store('http://h:1/auth/logout', gone);
    expect(jar.header('http://h:1/sales-order')).to.equal(undefined);
    const foreign = new Headers({ 'Set-Cookie': 'a=1' });
    jar.store('http://other:1/', foreign);
    expect(jar.size).to.equal(1);
  });

  it('in a browser leaves cookies, Origin and User-Agent to the browser and sends credentials with the cookie login', async () => {
    const recorder = recordingFetch(() => json({ result: { userName: 'u', name: 'u', roles: [], authenticationType: 'Cookies' }, messages: [] }, 200, { 'Set-Cookie': 'restlayer.sid=abc' }));
    const client = new RestClient({ BaseAddress: 'http://h:1', Authorization: false }, { fetch: recorder.fetch, environment: 'browser' });
    await client.login('u', 'p');
    await new SalesOrderProxy(client).update(1, { status: 1, onlineOrderFlag: true });
    for (const sent of recorder.sent) {
      expect(sent.credentials).to.equal('include');
      for (const name of ['cookie', 'origin', 'user-agent']) expect(sent.headers.has(name), name).to.equal(false);
    }
    const node = recordingFetch(() => json({ messages: [] }, 200, { 'Set-Cookie': 'restlayer.sid=abc' }));
    const nodeClient = new RestClient({ BaseAddress: 'http://h:1', Authorization: false, ClientName: 'crm' }, { fetch: node.fetch, environment: 'node' });
    await nodeClient.login('u', 'p');
    await new SalesOrderProxy(nodeClient).delete(1);
    await new SalesOrderProxy(nodeClient).read(1);
    expect(node.sent.map((s) => [s.method, s.headers.get('cookie'), s.headers.get('origin'), s.headers.get('user-agent')])).to.deep.equal([
      ['POST', null, 'http://h:1', 'crm'], ['DELETE', 'restlayer.sid=abc', 'http://h:1', 'crm'], ['GET', 'restlayer.sid=abc', null, 'crm'],
    ]);
  });

  it('keeps a transient refresh failure out of the session: the still-valid token goes on, an expired one answers the failure', async () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const token = (life: number) => `${part({ alg: 'HS256' })}.${part({ sub: 'u', iat: now - 100, exp: now + life })}.sig`;
    const recorder = recordingFetch((r) => (r.url.pathname === '/auth/refresh' ? json({ messages: [{ code: 'Storage_Unavailable', message: 'later', severity: 'Error', type: 'System' }] }, 503) : json({ messages: [] })));
    const client = new RestClient({ BaseAddress: 'http://h:1' }, { fetch: recorder.fetch });
    const proxy = new SalesOrderProxy(client);
    client.tokens!.setTokens({ accessToken: token(5), refreshToken: 'r' });
    expect((await proxy.delete(1)).messages).to.deep.equal([]);
    expect(recorder.sent.map((s) => `${s.url.pathname} ${s.status}`)).to.deep.equal(['/auth/refresh 503', '/sales-order/1 200']);
    client.tokens!.setTokens({ accessToken: token(-5), refreshToken: 'r' });
    const failed = await proxy.delete(1);
    expect(failed.messages.map((m) => m.code)).to.deep.equal(['Storage_Unavailable']);
    expect(client.tokens!.tokens).to.not.equal(undefined);
  });

  it('mergePatch answers a record as a PATCH leaves it: what it names replaced, null cleared, the rest kept, the revision the record\'s', () => {
    type Note = { title: string; note?: string | null; due?: string | null; revisionNumber?: number | null };
    const record: Note = { title: 'A', note: 'keep', due: '2030-01-01', revisionNumber: 4 };
    expect(mergePatch(record, { title: 'B', due: null })).to.deep.equal({ title: 'B', note: 'keep', due: null, revisionNumber: 4 });
    // An absent field and a null revision change nothing (a patch cannot ask for no revision check); a revision it names is taken.
    expect(mergePatch(record, { note: undefined, revisionNumber: null })).to.deep.equal(record);
    expect(mergePatch(record, { revisionNumber: 3 })).to.include({ revisionNumber: 3 });
    expect(record, 'the record given is not changed').to.deep.equal({ title: 'A', note: 'keep', due: '2030-01-01', revisionNumber: 4 });
  });

  it('imports nothing of Node: the client and its proxies can go into a browser bundle', () => {
    const dist = fileURLToPath(new URL('../../', import.meta.url));
    for (const entry of ['lib/client/index.js', 'services/sales-order/sales-order-proxy.js', 'lib/client/lookup-proxy.js']) {
      const { modules, bare } = importGraph(resolve(dist, entry));
      expect(modules.length, entry).to.be.greaterThan(0);
      const node = bare.filter((spec) => spec.startsWith('node:') || builtinModules.includes(spec));
      expect(node, `${entry} reaches ${node.join(', ')}`).to.deep.equal([]);
      expect(bare, `${entry} needs packages: ${bare.join(', ')}`).to.deep.equal([]);
      expect(modules.every((m) => m.includes('/lib/client/') || m.endsWith('-proxy.js')), modules.join('\n')).to.equal(true);
    }
    // The scan does see Node imports where there are some.
    expect(importGraph(resolve(dist, 'lib/server.js')).bare).to.include('node:http');
  });
});
