import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

/** An address the client made up, as an attacker would write it into X-Forwarded-For. */
const madeUp = () => [...randomBytes(4)].join('.');

/**
 * Contract part 4, "Client address": with Server:TrustProxy, the client is the X-Forwarded-For entry
 * Server:ProxyCount places from the right; without it, the socket's address. Seen through the address throttle
 * (AddressFailures 4) and the log line of a refused login.
 */
async function failedLogins(server: TestServer, count: number, forwardedFor: (i: number) => string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const reply = await server.call('/auth/jwt', {
      method: 'POST', token: null, body: { userName: `someone-${i}`, password: 'wrong' }, headers: { 'X-Forwarded-For': forwardedFor(i) },
    });
    statuses.push(reply.status);
  }
  return statuses;
}

const throttle = { AccountFailures: 100, AddressFailures: 4, WindowSeconds: 60 };

describeStores('client address behind one proxy (Server:ProxyCount default 1)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { Server: { TrustProxy: true }, Authentication: { PasswordHashCost: 10, Throttle: throttle } } });
  });
  after(() => server.stop());

  it('a made-up left entry is ignored: the rightmost entry (written by the proxy) is throttled', async () => {
    const statuses = await failedLogins(server, 6, () => `${madeUp()}, ${madeUp()}, 192.0.2.10`);
    expect(statuses).to.deep.equal([401, 401, 401, 401, 429, 429]);
    const refused = server.logs.filter((l) => l.msg === 'login refused');
    expect(refused.map((l) => [l.clientAddress, l.reason])).to.deep.equal([['192.0.2.10', 'address'], ['192.0.2.10', 'address']]);
  });

  it('another rightmost entry is another client', async () => {
    expect(await failedLogins(server, 2, () => `192.0.2.10, 192.0.2.11`)).to.deep.equal([401, 401]);
  });
});

describeStores('client address behind two proxies (Server:ProxyCount 2)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { Server: { TrustProxy: true, ProxyCount: 2 }, Authentication: { PasswordHashCost: 10, Throttle: throttle } } });
  });
  after(() => server.stop());

  it('the second entry from the right is the client, whatever is left of it and whichever inner proxy added the last', async () => {
    const statuses = await failedLogins(server, 6, (i) => `${madeUp()}, 198.51.100.20, 10.0.0.${i % 2 ? 1 : 2}`);
    expect(statuses).to.deep.equal([401, 401, 401, 401, 429, 429]);
    expect(server.logs.filter((l) => l.msg === 'login refused').map((l) => l.clientAddress)).to.deep.equal(['198.51.100.20', '198.51.100.20']);
    // The address the inner proxies share is not the client: another client behind them is not throttled.
    expect(await failedLogins(server, 1, () => `198.51.100.21, 10.0.0.1`)).to.deep.equal([401]);
  });
});

describeStores('client address without Server:TrustProxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { Server: { TrustProxy: false, ProxyCount: 2 }, Authentication: { PasswordHashCost: 10, Throttle: throttle } } });
  });
  after(() => server.stop());

  it('X-Forwarded-For is ignored: the socket address is the client', async () => {
    const statuses = await failedLogins(server, 6, () => `${madeUp()}, ${madeUp()}`);
    expect(statuses).to.deep.equal([401, 401, 401, 401, 429, 429]);
    expect(server.logs.filter((l) => l.msg === 'login refused').map((l) => l.clientAddress)).to.deep.equal(['127.0.0.1', '127.0.0.1']);
  });
});
