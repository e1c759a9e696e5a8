import { expect } from 'chai';
import { type TestServer, startTestServer } from '../support/server.js';
import { removeTempDirs } from '../support/temp.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { describeStores } from '../support/stores.js';

/**
 * GET /auth/session: "who am I" for anyone. A browser app asks it on start instead of a secured route, so a first
 * visit logs no 401; it answers the caller of a valid cookie or token, and no result, never a 401, otherwise.
 */
describeStores('auth: GET /auth/session (who am I)', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ sampleData: false, config: FAST_HASH });
    await addUser(server, 'sina', 'sina-password-1', ['Clerk'], 'Sina Session');
  });
  after(async () => {
    await server?.stop();
    removeTempDirs();
  });

  const cookieLogin = async () => {
    const reply = await server.call('/auth/cookie', { method: 'POST', token: null, body: { userName: 'sina', password: 'sina-password-1' } });
    expect(reply.status, reply.text).to.equal(200);
    return cookieHeader(reply.headers);
  };

  it('answers 200 with no result and no message to a caller without credentials', async () => {
    const reply = await server.call('/auth/session', { token: null });
    expect([reply.status, reply.body]).to.deep.equal([200, { messages: [] }]);
    expect(reply.headers.get('www-authenticate')).to.equal(null);
    // An answer about the caller: no cache may keep it for the next one.
    expect(reply.headers.get('cache-control')).to.equal('no-store');
    expect(reply.headers.get('vary')).to.include('Cookie').and.include('Authorization');
  });

  it('answers the user of a cookie session, and no one once it is logged out', async () => {
    const cookie = await cookieLogin();
    const reply = await server.call('/auth/session', { token: null, headers: { Cookie: cookie } });
    const permissions = ['customer.create', 'customer.delete', 'customer.read', 'customer.update', 'sales-order.create', 'sales-order.delete', 'sales-order.read', 'sales-order.update'];
    expect([reply.status, reply.body]).to.deep.equal([200, { result: { userName: 'sina', name: 'Sina Session', roles: ['Clerk'], permissions, authenticationType: 'Cookies' }, messages: [] }]);
    const origin = new URL(server.url).origin;
    expect((await server.call('/auth/logout', { method: 'POST', token: null, body: {}, headers: { Cookie: cookie, Origin: origin } })).status).to.equal(200);
    expect((await server.call('/auth/session', { token: null, headers: { Cookie: cookie } })).body).to.deep.equal({ messages: [] });
  });

  it('answers the user of a valid bearer token, and no one (200) for an invalid one', async () => {
    const token = server.token({ sub: 'sina', name: 'Sina Session', role: ['Clerk'] });
    const reply = await server.call('/auth/session', { token });
    expect(reply.status).to.equal(200);
    expect(reply.body.result).to.include({ userName: 'sina', authenticationType: 'Bearer' });
    const forged = await server.call('/auth/session', { token: `${token.slice(0, -4)}AAAA` });
    expect([forged.status, forged.body]).to.deep.equal([200, { messages: [] }]);
  });

  it('is listed in the OpenAPI document as anonymous', async () => {
    const doc = (await server.call('/openapi.json', { token: null })).body.result as { paths: Record<string, { get?: { security?: unknown[] } }> };
    expect(doc.paths['/auth/session']?.get?.security).to.deep.equal([]);
  });
});
