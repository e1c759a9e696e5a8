import { expect } from 'chai';
import { type TestServer, startTestServer } from '../support/server.js';
import { addUser } from '../support/users.js';
import { describeStores } from '../support/stores.js';

describeStores('login throttling', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      config: { Server: { TrustProxy: true }, Authentication: { PasswordHashCost: 10, Throttle: { AccountFailures: 3, AddressFailures: 6, WindowSeconds: 60 } } },
    });
    await addUser(server, 'erin', 'erin-password-1');
    await addUser(server, 'frank', 'frank-password-1');
  });
  after(() => server.stop());

  const attempt = (userName: string, password: string, ip?: string) =>
    server.call('/auth/jwt', { method: 'POST', token: null, body: { userName, password }, headers: ip ? { 'X-Forwarded-For': ip } : {} });

  it('throttles an account after repeated failures, even for the right password, with Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt('erin', 'wrong', '10.0.0.1')).status).to.equal(401);
    const blocked = await attempt('erin', 'erin-password-1', '10.0.0.2');
    expect(blocked.status).to.equal(429);
    expect(blocked.body.messages[0].code).to.equal('Request_Throttled');
    const retryAfter = Number(blocked.headers.get('Retry-After'));
    expect(retryAfter).to.be.within(1, 60);
    // Another account is not affected by erin's failures.
    expect((await attempt('frank', 'frank-password-1', '10.0.0.1')).status).to.equal(200);
  });

  it('throttles a client address that tries many accounts, unknown ones included', async () => {
    const names = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
    for (const name of names) expect((await attempt(name, 'wrong', '10.9.9.9')).status).to.equal(401);
    const blocked = await attempt('frank', 'frank-password-1', '10.9.9.9');
    expect(blocked.status).to.equal(429);
    expect(blocked.headers.get('Retry-After')).to.match(/^\d+$/);
    // The account itself is fine from elsewhere.
    expect((await attempt('frank', 'frank-password-1', '10.1.1.1')).status).to.equal(200);
  });
});
