import { expect } from 'chai';
import { until } from '../support/wait.js';
import { requireServices } from '../support/hooks.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { type TcpProxy, tcpProxy } from '../support/tcp-proxy.js';
import { createTestDatabase, dropRedisKeys, pgAdminUrl, redisPrefix, redisUrl } from '../support/test-stores.js';
import { addUser } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';


describeOneStore('readiness follows PostgreSQL and Redis, and the server recovers by itself', WHY_ONE_STORE.scale, function () {
  this.timeout(90_000);
  let pgProxy: TcpProxy;
  let redisProxy: TcpProxy;
  let server: TestServer;
  let dropDatabase: () => Promise<void>;
  const prefix = redisPrefix();

  before(async function () {
    await requireServices(this, ['postgres', 'redis'], 'the readiness tests');
    const database = await createTestDatabase(true);
    dropDatabase = database.drop;
    const pgUrl = new URL(database.url);
    pgProxy = await tcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    pgUrl.host = `127.0.0.1:${pgProxy.port}`;
    const redis = new URL(redisUrl);
    redisProxy = await tcpProxy(redis.hostname, Number(redis.port || 6379));
    redis.host = `127.0.0.1:${redisProxy.port}`;
    server = await startTestServer({
      config: {
        Storage: { Provider: 'postgres', Postgres: { Url: pgUrl.toString() } },
        Cache: { Redis: { Url: redis.toString(), KeyPrefix: prefix } },
        Authentication: { PasswordHashCost: 10 },
      },
    });
    await addUser(server, 'rita', 'rita-password-1');
    expect(pgAdminUrl).to.be.a('string');
  });
  after(async () => {
    await server?.stop();
    await pgProxy?.close();
    await redisProxy?.close();
    await dropDatabase?.();
    await dropRedisKeys(prefix);
  });

  const ready = () => server.call('/health/ready', { token: null });
  const isReady = async () => (await ready()).status === 200;

  it('is ready while both answer', async () => {
    const reply = await ready();
    expect(reply.status).to.equal(200);
    expect(reply.body.result).to.deep.equal({ status: 'Healthy' });
  });

  it('answers 503 while PostgreSQL is unreachable, requests get a 503 envelope, and it recovers', async () => {
    const login = await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'rita', password: 'rita-password-1' } });
    const sessionToken = (login.body.result as { accessToken: string }).accessToken;
    await pgProxy.stop();
    await until(async () => (await ready()).status === 503, 'readiness to drop');
    const down = await ready();
    expect(down.body.messages[0]).to.deep.include({ code: 'Health_NotReady' });
    expect(down.body.messages[0].message).to.contain('database');
    const call = await server.call('/sales-order/43659');
    expect(call.status).to.equal(503);
    expect(call.body.messages[0].code).to.equal('Storage_Unavailable');
    // A token of a login session (with sid) must not turn into a 401 during the outage: the session check is storage too.
    const withSession = await server.call('/sales-order/43659', { token: sessionToken });
    expect(withSession.status).to.equal(503);
    expect(withSession.body.messages[0].code).to.equal('Storage_Unavailable');
    expect((await server.call('/health/live', { token: null })).status).to.equal(200);

    await pgProxy.start();
    await until(isReady, 'readiness to come back');
    expect((await server.call('/sales-order/43659')).status).to.equal(200);
  });

  it('answers 503 while Redis is unreachable (logins too, never 500), and it recovers', async () => {
    await redisProxy.stop();
    await until(async () => (await ready()).status === 503, 'readiness to drop');
    expect((await ready()).body.messages[0].message).to.contain('Redis');
    const login = await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'rita', password: 'rita-password-1' } });
    expect(login.status).to.equal(503);
    expect(login.body.messages[0].code).to.equal('Storage_Unavailable');

    await redisProxy.start();
    await until(isReady, 'readiness to come back');
    const again = await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'rita', password: 'rita-password-1' } });
    expect(again.status).to.equal(200);
  });
});
