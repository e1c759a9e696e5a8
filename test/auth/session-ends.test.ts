import { expect } from 'chai';
import { SESSION_COOKIE, withErrorScope } from 'restlayer';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { describeStores } from '../support/stores.js';

interface Pair {
  accessToken: string;
  refreshToken: string;
}

const PARALLEL = 10;
const ORDER = '/sales-order/43659';

/**
 * Ends of a login that race the calls which use it (contract part 4): a logout, or the user's end, checked and
 * written in separate steps from the refreshes and requests in flight, must leave nothing of the session working.
 */
describeStores('session ends racing the calls of that session', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { Authentication: FAST_HASH.Authentication } });
    for (const user of ['pia', 'quinn', 'rae', 'sol']) await addUser(server, user, `${user}-password-1`);
  });
  after(() => server.stop());

  const login = (path: '/auth/jwt' | '/auth/cookie', user: string) =>
    server.call(path, { method: 'POST', token: null, body: { userName: user, password: `${user}-password-1` } });
  const refresh = (pair: Pair) => server.call('/auth/refresh', { method: 'POST', token: null, body: pair });
  const statuses = (replies: Reply[]) => replies.map((r) => r.status);

  /** After the race: no access token and no refresh token the session ever answered works. */
  async function expectSessionEnded(pairs: Pair[]) {
    const calls = await Promise.all(pairs.map((p) => server.call(ORDER, { token: p.accessToken })));
    expect(statuses(calls)).to.deep.equal(pairs.map(() => 401));
    const refreshes = await Promise.all([...new Set(pairs.map((p) => p.refreshToken))].map((refreshToken) => refresh({ accessToken: pairs[0].accessToken, refreshToken })));
    expect(statuses(refreshes)).to.deep.equal(refreshes.map(() => 401));
  }

  it(`a bearer logout racing ${PARALLEL} refreshes of its session: afterwards nothing of the session works`, async () => {
    const pair = (await login('/auth/jwt', 'pia')).body.result as Pair;
    const [logout, ...replies] = await Promise.all([
      server.call('/auth/logout', { method: 'POST', token: pair.accessToken }),
      ...Array.from({ length: PARALLEL }, () => refresh(pair)),
    ]);
    expect(logout.status, logout.text).to.equal(200);
    // Each refresh came before the logout (200) or after it (401); whichever, what it answered ends with the session.
    for (const r of replies) expect([200, 401], r.text).to.include(r.status);
    await expectSessionEnded([pair, ...replies.filter((r) => r.status === 200).map((r) => r.body.result as Pair)]);
  });

  it(`a user disabled while ${PARALLEL} refreshes of its session run: afterwards nothing of the session works`, async () => {
    const pair = (await login('/auth/jwt', 'quinn')).body.result as Pair;
    const [, ...replies] = await Promise.all([
      withErrorScope(() => server.services.users.disable('quinn')),
      ...Array.from({ length: PARALLEL }, () => refresh(pair)),
    ]);
    await expectSessionEnded([pair, ...replies.filter((r) => r.status === 200).map((r) => r.body.result as Pair)]);
  });

  it(`token rotation racing refreshes of ${PARALLEL} sessions of the user: afterwards no refresh token of the user works`, async () => {
    // The rotation comes a little later each round, so that it meets refreshes at every stage of their transaction.
    for (let round = 0; round < 12; round++) {
      // One after the other: more logins of one account at once than its throttle limit are refused (429) by design.
      const pairs: Pair[] = [];
      for (let i = 0; i < PARALLEL; i++) pairs.push((await login('/auth/jwt', 'sol')).body.result as Pair);
      const [, ...replies] = await Promise.all([
        new Promise((r) => setTimeout(r, round)).then(() => withErrorScope(() => server.services.tokens.rotate('sol'))),
        ...pairs.map((pair) => refresh(pair)),
      ]);
      // A refresh that came first answered a new pair; rotation must have spent that one too.
      const answered = [...pairs, ...replies.filter((r) => r.status === 200).map((r) => r.body.result as Pair)];
      const after = await Promise.all(answered.map((pair) => refresh(pair)));
      expect(statuses(after), `round ${round}`).to.deep.equal(answered.map(() => 401));
    }
  });

  it(`a cookie logout racing requests that renew the session: the session stays ended (3 rounds)`, async () => {
    const origin = new URL(server.url).origin;
    const store = server.infrastructure.cookieSessions;
    const maxAge = server.config.Authentication.Cookie.IdleMinutes * 60_000;
    const use = (cookie: string) => Array.from({ length: PARALLEL }, () => server.call(ORDER, { token: null, headers: { Cookie: cookie } }));
    for (let round = 0; round < 3; round++) {
      const cookie = cookieHeader((await login('/auth/cookie', 'rae')).headers);
      const key = new RegExp(`(?:^|; )${SESSION_COOKIE.replace('.', '\\.')}=([^;]+)`).exec(cookie)![1];
      // Past half its idle lifetime, so that requests which load it save it again (koa-session's renew).
      const session = (await store.get(key))!;
      await store.set(key, { ...session, _expire: Date.now() + maxAge / 3 }, maxAge);

      // Requests in flight when the logout comes, and more after it.
      const before = use(cookie);
      await new Promise((r) => setTimeout(r, 2));
      const logout = server.call('/auth/logout', { method: 'POST', token: null, headers: { Cookie: cookie, Origin: origin } });
      const replies = await Promise.all([...before, ...use(cookie)]);
      expect((await logout).status).to.equal(200);
      for (const r of replies) expect([200, 401], r.text).to.include(r.status);
      // A request that loaded the session before the logout and saved it after must not have brought it back.
      expect(await store.get(key), `round ${round}`).to.equal(undefined);
      const after = await server.call(ORDER, { token: null, headers: { Cookie: cookie } });
      expect(after.status, after.text).to.equal(401);
      expect(after.body.messages.map((m) => m.code)).to.deep.equal(['Security_Unauthenticated']);
    }
  });

  it('a login whose user is removed while the password is checked answers 401 Login_InvalidCredentials, not a 500', async () => {
    // The moment after the password check: the login session is issued for a user no longer there.
    const issued = await withErrorScope(() => server.services.tokens.issue({ userName: 'removed-meanwhile', name: 'Gone', roles: [], stamp: 'x' }));
    expect([issued.result, issued.messages.map((m) => m.code)]).to.deep.equal([undefined, ['Login_InvalidCredentials']]);
  });
});
