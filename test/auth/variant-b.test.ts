import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { type TestServer, startTestServer } from '../support/server.js';
import { addUser } from '../support/users.js';
import { describeStores } from '../support/stores.js';

const SECRET = 'variant-b-secret-that-is-long-enough-0123456789';

describeStores('variant B: /authentication', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      config: { Authentication: { Variant: 'B', PasswordHashCost: 10 } },
      env: { AuthConfig__SigningKey: SECRET, AuthConfig__Issuer: 'b-issuer', AuthConfig__Audience: 'b-audience', AuthConfig__ExpiresMin: '30' },
    });
    await addUser(server, 'gina', 'gina-password-1', ['Clerk', 'Administrator']);
  });
  after(() => server.stop());

  it('answers Output<string>: a JWT with the user name, roles, issuer, audience and lifetime of AuthConfig', async () => {
    const reply = await server.call('/authentication', { method: 'POST', token: null, body: { UserName: 'gina', Password: 'gina-password-1' } });
    expect(reply.status).to.equal(200);
    expect(reply.body.result).to.be.a('string');
    const claims = jwt.verify(reply.body.result as string, Buffer.from(SECRET, 'utf8'), { algorithms: ['HS256'], issuer: 'b-issuer', audience: 'b-audience' }) as jwt.JwtPayload;
    expect(claims.sub).to.equal('gina');
    expect(claims.role).to.deep.equal(['Clerk', 'Administrator']);
    expect(claims.exp! - claims.iat!).to.equal(30 * 60);
    const call = await server.call('/lookup-table/operators', { method: 'DELETE', token: reply.body.result as string });
    expect(call.status).to.equal(200);
  });

  it('requires both fields and refuses bad credentials', async () => {
    const missing = await server.call('/authentication', { method: 'POST', token: null, body: { userName: 'gina' } });
    expect(missing.status).to.equal(400);
    expect(missing.body.messages.map((m) => m.property)).to.deep.equal(['password']);
    const wrong = await server.call('/authentication', { method: 'POST', token: null, body: { userName: 'gina', password: 'nope-nope' } });
    expect(wrong.status).to.equal(401);
    expect(wrong.body.messages[0].code).to.equal('Login_InvalidCredentials');
  });

  it('variant A routes do not exist', async () => {
    for (const path of ['/auth/cookie', '/auth/jwt', '/auth/refresh']) {
      const reply = await server.call(path, { method: 'POST', token: null, body: {} });
      expect(reply.status, path).to.equal(404);
    }
  });

  it('refuses tokens signed with the variant A key', async () => {
    const reply = await server.call('/sales-order/43659', { token: server.token() });
    expect(reply.status).to.equal(401);
    expect(reply.body.messages[0].code).to.equal('Security_TokenInvalid');
  });
});
