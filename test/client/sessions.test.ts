import { expect } from 'chai';
import {
  type RestClient, SESSION_EXPIRED_TEXT, SessionExpiredError, SessionExpiredEvent, type TokenService,
} from 'restlayer/client';
import { withErrorScope } from 'restlayer';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { addUser } from '../support/users.js';
import { type Sent, clientFor, expiredCopy, recordingFetch, sleep, until } from './support.js';
import { describeStores } from '../support/stores.js';

/** Three-second tokens: short enough to watch them expire, long enough for a few calls. */
const SHORT = 0.05;

interface Harness {
  client: RestClient;
  tokens: TokenService;
  proxy: SalesOrderProxy;
  recorder: ReturnType<typeof recordingFetch>;
  events: SessionExpiredEvent[];
  refreshes: () => Sent[];
  /** Requests to the API other than login and refresh. */
  calls: () => Sent[];
}

function harness(server: TestServer, options: { variant?: 'A' | 'B'; swap?: (authorization: string | null) => string | null } = {}): Harness {
  const recorder = recordingFetch(options.swap ? (r) => {
    const headers = new Headers(r.headers);
    const swapped = options.swap!(headers.get('Authorization'));
    if (swapped) headers.set('Authorization', swapped);
    return fetch(r.url, { method: r.method, headers, body: r.body });
  } : undefined);
  const client = clientFor(server, { Authorization: true }, { fetch: recorder.fetch, variant: options.variant });
  const events: SessionExpiredEvent[] = [];
  client.tokens!.addEventListener('sessionexpired', (event) => events.push(event as SessionExpiredEvent));
  return {
    client, tokens: client.tokens!, proxy: new SalesOrderProxy(client), recorder, events,
    refreshes: () => recorder.to('/auth/refresh'),
    calls: () => recorder.sent.filter((s) => s.url.pathname.startsWith('/sales-order')),
  };
}

async function rejection(promise: Promise<unknown>): Promise<SessionExpiredError> {
  const error = await promise.then(() => expect.fail('the call resolved'), (e: unknown) => e);
  expect(error).to.be.instanceOf(SessionExpiredError);
  expect(error).to.include({ code: 'Login_SessionExpired', message: SESSION_EXPIRED_TEXT });
  return error as SessionExpiredError;
}

const inLeadWindow = (tokens: TokenService) => until(() => tokens.expiresInMs! < tokens.refreshLeadMs);

describeStores('client: sessions', () => {
  describe('token service, variant A, three-second access tokens', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ config: { Authentication: { PasswordHashCost: 10, AccessTokenMinutes: SHORT } } });
      for (const name of ['tom', 'una', 'vic', 'wes']) await addUser(server, name, `${name}-password-1`);
    });
    after(() => server.stop());

    const login = async (h: Harness, user = 'tom') => expect((await h.client.login(user, `${user}-password-1`)).messages).to.deep.equal([]);

    it('refreshes before the token expires: the call goes out with a new token and never sees a 401', async () => {
      const h = harness(server);
      await login(h);
      const first = h.tokens.tokens!;
      expect(h.tokens.refreshLeadMs).to.be.within(500, 1000);
      expect((await h.proxy.read(43659)).messages).to.deep.equal([]);
      expect(h.refreshes()).to.have.length(0);
      await inLeadWindow(h.tokens);
      expect((await h.proxy.read(43659)).messages).to.deep.equal([]);
      expect(h.refreshes().map((s) => s.status)).to.deep.equal([200]);
      expect(JSON.parse(h.refreshes()[0].body!)).to.deep.equal({ accessToken: first.accessToken, refreshToken: first.refreshToken });
      expect(h.recorder.sent.map((s) => s.url.pathname)).to.deep.equal(['/auth/jwt', '/sales-order/43659', '/auth/refresh', '/sales-order/43659']);
      const now = h.tokens.tokens!;
      expect(now.accessToken).to.not.equal(first.accessToken);
      expect(now.refreshToken).to.not.equal(first.refreshToken);
      expect(h.calls().at(-1)!.headers.get('Authorization')).to.equal(`Bearer ${now.accessToken}`);
      expect(h.recorder.statuses()).to.not.include(401);
    });

    it('keeps a session going over several token lifetimes with proactive refreshes only', async () => {
      const h = harness(server);
      await login(h);
      const end = Date.now() + 7_000;
      while (Date.now() < end) {
        expect((await h.proxy.read(43659)).messages).to.deep.equal([]);
        await sleep(300);
      }
      expect(h.refreshes().length).to.be.within(2, 5);
      expect(h.recorder.statuses()).to.not.include(401);
    });

    it('refreshes once on a 401 (an expired token presented) and sends the call again', async () => {
      let loginToken = '';
      const h = harness(server, { swap: (auth) => (auth === `Bearer ${loginToken}` ? `Bearer ${expiredCopy(loginToken)}` : null) });
      await login(h);
      loginToken = h.tokens.tokens!.accessToken;
      // What the server says to that token:
      const direct = await server.call('/sales-order/43659', { token: expiredCopy(loginToken) });
      expect(direct.body.messages[0].code).to.equal('Security_TokenExpired');
      const output = await h.proxy.read(43659);
      expect(output.messages).to.deep.equal([]);
      expect(output.result!.salesOrderId).to.equal(43659);
      expect(h.recorder.sent.map((s) => `${s.url.pathname} ${s.status}`)).to.deep.equal([
        '/auth/jwt 200', '/sales-order/43659 401', '/auth/refresh 200', '/sales-order/43659 200',
      ]);
      expect(h.events).to.have.length(0);
    });

    it('ten concurrent calls in the refresh window share one refresh', async () => {
      const h = harness(server);
      await login(h);
      await inLeadWindow(h.tokens);
      const outputs = await Promise.all(Array.from({ length: 10 }, () => h.proxy.read(43659)));
      expect(outputs.map((o) => o.messages.length)).to.deep.equal(Array(10).fill(0));
      expect(h.refreshes()).to.have.length(1);
      expect(new Set(h.calls().map((s) => s.headers.get('Authorization')))).to.deep.equal(new Set([`Bearer ${h.tokens.tokens!.accessToken}`]));
    });

    it('ten concurrent calls refused with 401 share one refresh and all succeed on their second try', async () => {
      let loginToken = '';
      const h = harness(server, { swap: (auth) => (auth === `Bearer ${loginToken}` ? `Bearer ${expiredCopy(loginToken)}` : null) });
      await login(h, 'una');
      loginToken = h.tokens.tokens!.accessToken;
      const outputs = await Promise.all(Array.from({ length: 10 }, (_, i) => h.proxy.readList({ take: 1, skip: i })));
      expect(outputs.map((o) => o.messages.length)).to.deep.equal(Array(10).fill(0));
      expect(h.refreshes().map((s) => s.status)).to.deep.equal([200]);
      expect(h.calls().map((s) => s.status).sort()).to.deep.equal([...Array(10).fill(200), ...Array(10).fill(401)]);
    });

    it('a refresh the server refuses raises Login_SessionExpired: an error for the call and one event', async () => {
      const h = harness(server, {});
      await login(h, 'vic');
      expect((await h.proxy.read(43659)).messages).to.deep.equal([]);
      await withErrorScope(() => server.services.tokens.rotate('vic'));
      await inLeadWindow(h.tokens);
      const error = await rejection(h.proxy.read(43659));
      expect(error.serverMessages.map((m) => m.code)).to.deep.equal(['Security_InvalidRefreshToken']);
      expect(error.messages).to.deep.equal([{ code: 'Login_SessionExpired', message: SESSION_EXPIRED_TEXT, severity: 'Error', type: 'Security' }]);
      expect(h.events).to.have.length(1);
      expect(h.events[0]).to.be.instanceOf(SessionExpiredEvent);
      expect(h.events[0].error).to.equal(error);
      expect(h.refreshes().map((s) => s.status)).to.deep.equal([401]);
      expect(h.tokens.tokens).to.equal(undefined);
      // Later calls fail the same way without announcing the end again.
      await rejection(h.proxy.readList({ take: 1 }));
      expect(h.events).to.have.length(1);
      // A new login starts a new session, whose end is announced again.
      await login(h, 'vic');
      expect((await h.proxy.read(43659)).messages).to.deep.equal([]);
      await withErrorScope(() => server.services.tokens.rotate('vic'));
      await h.tokens.refresh().then(() => expect.fail('refreshed'), () => undefined);
      expect(h.events).to.have.length(2);
    });

    it('ten concurrent calls whose one refresh is refused all get Login_SessionExpired, announced once', async () => {
      const h = harness(server);
      await login(h, 'wes');
      await withErrorScope(() => server.services.tokens.rotate('wes'));
      await inLeadWindow(h.tokens);
      const errors = await Promise.all(Array.from({ length: 10 }, () => rejection(h.proxy.read(43659))));
      expect(new Set(errors).size).to.equal(1);
      expect(h.refreshes()).to.have.length(1);
      expect(h.events).to.have.length(1);
      expect(h.calls()).to.have.length(0);
    });

    it('a 401 whose refresh is refused too (user disabled) raises Login_SessionExpired', async () => {
      await addUser(server, 'xav', 'xav-password-1');
      const h = harness(server);
      let seen: SessionExpiredError | undefined;
      h.client.onSessionExpired((error) => (seen = error));
      await login(h, 'xav');
      await withErrorScope(() => server.services.users.disable('xav'));
      const error = await rejection(h.proxy.update(43659, { status: 1, onlineOrderFlag: false }));
      expect(seen).to.equal(error);
      expect(h.recorder.sent.map((s) => `${s.url.pathname} ${s.status}`)).to.deep.equal(['/auth/jwt 200', '/sales-order/43659 401', '/auth/refresh 401']);
    });
  });

  describe('token service, variant B, three-second tokens', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ config: { Authentication: { PasswordHashCost: 10, Variant: 'B' }, AuthConfig: { ExpiresMin: SHORT } } });
      await addUser(server, 'yan', 'yan-password-1');
    });
    after(() => server.stop());

    it('uses the JWT until it expires, then raises Login_SessionExpired without calling or refreshing', async () => {
      const h = harness(server, { variant: 'B' });
      expect((await h.client.login('yan', 'yan-password-1')).messages).to.deep.equal([]);
      expect((await h.proxy.read(43659)).messages).to.deep.equal([]);
      // Late in its life the token still goes out as it is: there is nothing to refresh it with.
      await until(() => h.tokens.expiresInMs! < 1500);
      expect((await h.proxy.read(43659)).messages).to.deep.equal([]);
      await until(() => h.tokens.expiresInMs! <= 0);
      await rejection(h.proxy.read(43659));
      expect(h.events).to.have.length(1);
      expect(h.calls()).to.have.length(2);
      expect(new Set(h.calls().map((s) => s.headers.get('Authorization'))).size).to.equal(1);
      expect(h.refreshes()).to.have.length(0);
    });

    it('a token the server refuses (401) raises Login_SessionExpired without a refresh', async () => {
      const h = harness(server, { variant: 'B' });
      h.tokens.setTokens({ accessToken: 'not.a.token' });
      const error = await rejection(h.proxy.read(43659));
      expect(error.serverMessages.map((m) => m.code)).to.deep.equal(['Security_TokenInvalid']);
      expect(h.events).to.have.length(1);
      expect(h.refreshes()).to.have.length(0);
    });
  });

  describe('cookie login', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ config: { Authentication: { PasswordHashCost: 10 } } });
      await addUser(server, 'zed', 'zed-password-1');
      await addUser(server, 'zoe', 'zoe-password-1');
    });
    after(() => server.stop());

    function cookieHarness() {
      const recorder = recordingFetch();
      const client = clientFor(server, { Authorization: false }, { fetch: recorder.fetch });
      const events: SessionExpiredEvent[] = [];
      client.session.addEventListener('sessionexpired', (event) => events.push(event as SessionExpiredEvent));
      return { client, proxy: new SalesOrderProxy(client), recorder, events };
    }

    it('a 401 (the cookie session ended on the server) raises Login_SessionExpired: error and event', async () => {
      const h = cookieHarness();
      await h.client.login('zed', 'zed-password-1');
      expect((await h.proxy.read(43659)).messages).to.deep.equal([]);
      await withErrorScope(() => server.services.users.disable('zed'));
      const error = await rejection(h.proxy.read(43659));
      expect(error.serverMessages.map((m) => m.code)).to.deep.equal(['Security_Unauthenticated']);
      expect(h.events.map((e) => e.error)).to.deep.equal([error]);
    });

    it('logout ends the session: the next call raises Login_SessionExpired', async () => {
      const h = cookieHarness();
      await h.client.login('zoe', 'zoe-password-1');
      expect((await h.client.logout()).messages).to.deep.equal([]);
      expect(h.recorder.to('/auth/logout').map((s) => s.status)).to.deep.equal([200]);
      await rejection(h.proxy.delete(43659));
      expect(h.events).to.have.length(1);
    });
  });
});
