import { expect } from 'chai';
import { Redis } from 'ioredis';
import { requireServices } from '../support/hooks.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { redisPrefix, redisUrl } from '../support/test-stores.js';
import { addUser } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * Issue 37, finding 8: the login throttle's counters in Redis were named by the typed user name in clear
 * (`login-account:<typed name>`, `login-checking:account:<typed name>`) for up to the window (900 s), though people
 * type passwords into the name field, and logs and traces keep names out for that reason. They are named by a keyed
 * hash now; the address likewise.
 */
describeOneStore('login throttle: Redis keys name no account and no address', WHY_ONE_STORE.redisKeys, function () {
  let server: TestServer;
  let redis: Redis;
  const prefix = redisPrefix();

  before(async function () {
    await requireServices(this, ['redis'], 'the throttle key test');
    server = await startTestServer({
      env: { Cache__Redis__Url: redisUrl, Cache__Redis__KeyPrefix: prefix },
      config: { Server: { TrustProxy: true }, Authentication: { PasswordHashCost: 10, Throttle: { AccountFailures: 2 } } },
    });
    await addUser(server, 'gwen', 'gwen-password-1');
    // A connection of its own, without the prefix: it sees every key as stored.
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });
  after(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  const attempt = (userName: string, password: string, ip: string) =>
    server.call('/auth/jwt', { method: 'POST', token: null, body: { userName, password }, headers: { 'X-Forwarded-For': ip } });
  const keys = async () => {
    const found: string[] = [];
    for (let cursor = '0'; ;) {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      found.push(...batch);
      if ((cursor = next) === '0') return found;
    }
  };

  it('a password typed as the user name, and the address, appear in no key; the counters still count', async () => {
    const typed = 'Tr0ub4dor&3-Typed-As-The-Name';
    const address = '203.0.113.77';
    expect((await attempt(typed, 'whatever', address)).status).to.equal(401);
    for (let i = 0; i < 2; i++) expect((await attempt('Gwen', 'wrong', address)).status).to.equal(401);
    // The account is spent (AccountFailures 2): even the right password is refused.
    expect((await attempt('gwen', 'gwen-password-1', '198.51.100.1')).status).to.equal(429);

    const all = await keys();
    const throttle = all.filter((k) => k.includes('login'));
    expect(throttle, 'throttle keys were written').to.not.be.empty;
    for (const secret of [typed, typed.toLowerCase(), 'gwen', address]) {
      expect(all.filter((k) => k.toLowerCase().includes(secret.toLowerCase())), secret).to.deep.equal([]);
    }
  });

  it('user unlock still finds the account\'s counter by its name', async () => {
    expect(await server.services.loginAttempts.unlock('GWEN')).to.equal(true);
    expect((await attempt('gwen', 'gwen-password-1', '198.51.100.2')).status).to.equal(200);
  });
});
