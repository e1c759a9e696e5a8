import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { SESSION_COOKIE } from 'restlayer';
import { type TestServer, TEST_AUDIENCE, TEST_ISSUER, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { describeStores } from '../support/stores.js';

describeStores('variant A: cookie and JWT login', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { ...FAST_HASH, Authentication: { ...FAST_HASH.Authentication, AllowedOrigins: ['https://app.example.com'] } } });
    await addUser(server, 'Alice', 'alice-password-1', ['Clerk', 'Administrator'], 'Alice Liddell');
  });
  after(() => server.stop());

  const login = (path: string, userName: string, password: string, headers: Record<string, string> = {}) =>
    server.call(path, { method: 'POST', token: null, body: { userName, password }, headers });

  it('cookie login answers the user and sets an HttpOnly, SameSite session cookie (not Secure over HTTP)', async () => {
    const reply = await login('/auth/cookie', 'alice', 'alice-password-1');
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal({
      result: {
        userName: 'Alice',
        name: 'Alice Liddell',
        roles: ['Clerk', 'Administrator'],
        // Every permission the two roles grant, wildcards expanded, sorted (contract part 10).
        permissions: [
          'customer.create', 'customer.delete', 'customer.read', 'customer.update', 'login-throttle.unlock', 'lookup-table.flush',
          'sales-order.create', 'sales-order.delete', 'sales-order.read', 'sales-order.update',
        ],
        authenticationType: 'Cookies',
      },
      messages: [],
    });
    const cookie = reply.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    expect(cookie, 'session cookie').to.be.a('string');
    expect(cookie).to.match(/;\s*httponly/i).and.match(/;\s*samesite=lax/i);
    expect(cookie).not.to.match(/;\s*secure/i);
  });

  it('a secured call works with the cookie alone, and the session id changes at login', async () => {
    const first = await login('/auth/cookie', 'alice', 'alice-password-1');
    const second = await login('/auth/cookie', 'alice', 'alice-password-1', { Cookie: cookieHeader(first.headers) });
    expect(cookieHeader(second.headers)).to.not.equal(cookieHeader(first.headers));
    const call = await server.call('/sales-order/43659', { token: null, headers: { Cookie: cookieHeader(second.headers) } });
    expect(call.status).to.equal(200);
    expect(call.body.result.salesOrderId).to.equal(43659);
    // The session the second login replaced is gone.
    const stale = await server.call('/sales-order/43659', { token: null, headers: { Cookie: cookieHeader(first.headers) } });
    expect(stale.status).to.equal(401);
    expect(stale.body.messages[0].code).to.equal('Security_Unauthenticated');
  });

  it('refuses a cookie-authenticated unsafe request from another origin, allows its own and allowed ones', async () => {
    const cookie = cookieHeader((await login('/auth/cookie', 'alice', 'alice-password-1')).headers);
    const body = { status: 2, onlineOrderFlag: true };
    const cross = await server.call('/sales-order/43661', { method: 'PUT', token: null, body, headers: { Cookie: cookie, Origin: 'https://evil.example.net' } });
    expect(cross.status).to.equal(403);
    expect(cross.body.messages[0].code).to.equal('Security_CsrfRejected');
    const none = await server.call('/sales-order/43661', { method: 'PUT', token: null, body, headers: { Cookie: cookie } });
    expect(none.status).to.equal(403);
    const own = new URL(server.url).origin;
    const same = await server.call('/sales-order/43661', { method: 'PUT', token: null, body, headers: { Cookie: cookie, Origin: own } });
    expect(same.status).to.equal(200);
    const allowed = await server.call('/sales-order/43661', { method: 'PUT', token: null, body, headers: { Cookie: cookie, Origin: 'https://app.example.com' } });
    expect(allowed.status).to.equal(200);
    // Reads are safe: no origin needed.
    expect((await server.call('/sales-order/43661', { token: null, headers: { Cookie: cookie } })).status).to.equal(200);
  });

  it('refuses Origin: null even with a same-origin Referer; consults Referer only when Origin is absent', async () => {
    const cookie = cookieHeader((await login('/auth/cookie', 'alice', 'alice-password-1')).headers);
    const own = new URL(server.url).origin;
    const revision = async () => (await server.call('/sales-order/43662')).body.result.revisionNumber as number;
    const put = (headers: Record<string, string>) =>
      server.call('/sales-order/43662', { method: 'PUT', token: null, body: { status: 2, onlineOrderFlag: true }, headers: { Cookie: cookie, ...headers } });
    const before = await revision();

    const nullOrEmpty: Record<string, string>[] = [{ Origin: 'null', Referer: `${own}/app/orders` }, { Origin: 'null' }, { Origin: '', Referer: `${own}/` }];
    for (const headers of nullOrEmpty) {
      const refused = await put(headers);
      expect(refused.status, JSON.stringify(headers)).to.equal(403);
      expect(refused.body.messages.map((m) => m.code), JSON.stringify(headers)).to.deep.equal(['Security_CsrfRejected']);
    }
    expect(await revision(), 'nothing was written').to.equal(before);

    const crossReferer = await put({ Referer: 'https://evil.example.net/page' });
    expect(crossReferer.status).to.equal(403);
    const ownReferer = await put({ Referer: `${own}/app/orders?x=1` });
    expect(ownReferer.status, ownReferer.text).to.equal(200);
    expect(await revision()).to.equal(before + 1);
  });

  it('logout ends the cookie session', async () => {
    const cookie = cookieHeader((await login('/auth/cookie', 'alice', 'alice-password-1')).headers);
    const out = await server.call('/auth/logout', { method: 'POST', token: null, headers: { Cookie: cookie, Origin: new URL(server.url).origin } });
    expect(out.status).to.equal(200);
    const after = await server.call('/sales-order/43659', { token: null, headers: { Cookie: cookie } });
    expect(after.status).to.equal(401);
  });

  it('JWT login answers an AuthToken whose access token carries the contract claims', async () => {
    const reply = await login('/auth/jwt', 'ALICE', 'alice-password-1');
    expect(reply.status).to.equal(200);
    const { accessToken, refreshToken } = reply.body.result as { accessToken: string; refreshToken: string };
    expect(Buffer.from(refreshToken, 'base64url').length).to.be.at.least(32);
    const decoded = jwt.decode(accessToken, { complete: true })!;
    expect(decoded.header.alg).to.equal('HS256');
    expect(decoded.header.kid).to.be.a('string');
    const claims = decoded.payload as Record<string, unknown>;
    expect(claims).to.include({ iss: TEST_ISSUER, aud: TEST_AUDIENCE, sub: 'Alice', name: 'Alice Liddell' });
    expect(claims.role).to.deep.equal(['Clerk', 'Administrator']);
    for (const c of ['iat', 'nbf', 'exp', 'jti', 'sid']) expect(claims, c).to.have.property(c);
    expect((claims.exp as number) - (claims.iat as number)).to.equal(15 * 60);
    const call = await server.call('/lookup-table/operators', { method: 'DELETE', token: accessToken });
    expect(call.status).to.equal(200);
  });

  it('bad credentials: the same 401 for an unknown user and a wrong password', async () => {
    const unknown = await login('/auth/jwt', 'nobody', 'whatever-password');
    const wrong = await login('/auth/jwt', 'alice', 'wrong-password');
    expect(unknown.status).to.equal(401);
    expect(wrong.status).to.equal(401);
    expect(unknown.body).to.deep.equal(wrong.body);
    expect(wrong.body.messages[0]).to.deep.include({ code: 'Login_InvalidCredentials', type: 'Security' });
    expect(wrong.body).not.to.have.property('result');
  });

  it('login input is validated: both fields required, each reported', async () => {
    const reply = await server.call('/auth/jwt', { method: 'POST', token: null, body: {} });
    expect(reply.status).to.equal(400);
    expect(reply.body.messages.map((m) => m.property).sort()).to.deep.equal(['password', 'userName']);
  });

  it('variant B route does not exist under variant A', async () => {
    const reply = await login('/authentication', 'alice', 'alice-password-1');
    expect(reply.status).to.equal(404);
    expect(reply.body.messages[0].code).to.equal('Route_NotFound');
  });
});
