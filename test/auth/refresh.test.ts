import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { withErrorScope } from 'restlayer';
import { type TestServer, TEST_AUDIENCE, TEST_ISSUER, TEST_KEY, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser } from '../support/users.js';
import { until } from '../support/wait.js';
import { describeStores } from '../support/stores.js';

interface Pair {
  accessToken: string;
  refreshToken: string;
}

describeStores('variant A: refresh tokens', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { Authentication: { ...FAST_HASH.Authentication, RefreshReuseGraceSeconds: 1 } } });
    await addUser(server, 'bob', 'bob-password-1', ['Clerk']);
    await addUser(server, 'carol', 'carol-password-1', ['Clerk']);
  });
  after(() => server.stop());

  const loginPair = async (user = 'bob'): Promise<Pair> => {
    const reply = await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: user, password: `${user}-password-1` } });
    expect(reply.status).to.equal(200);
    return reply.body.result as Pair;
  };
  const refresh = (pair: Pair) => server.call('/auth/refresh', { method: 'POST', token: null, body: pair });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('answers a new pair and the new access token works', async () => {
    const pair = await loginPair();
    const reply = await refresh(pair);
    expect(reply.status).to.equal(200);
    const next = reply.body.result as Pair;
    expect(next.refreshToken).to.not.equal(pair.refreshToken);
    expect(next.accessToken).to.not.equal(pair.accessToken);
    expect((await server.call('/sales-order/43659', { token: next.accessToken })).status).to.equal(200);
  });

  it('accepts an expired access token (lifetime is not checked) but checks its signature, issuer and audience', async () => {
    const pair = await loginPair();
    const claims = jwt.decode(pair.accessToken) as Record<string, unknown>;
    const key = Buffer.from(TEST_KEY, 'base64');
    const expired = jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 3600, iat: Math.floor(Date.now() / 1000) - 7200, nbf: Math.floor(Date.now() / 1000) - 7200 }, key, { algorithm: 'HS256' });
    const ok = await refresh({ accessToken: expired, refreshToken: pair.refreshToken });
    expect(ok.status).to.equal(200);

    const pair2 = await loginPair();
    const claims2 = jwt.decode(pair2.accessToken) as Record<string, unknown>;
    const forged = [
      jwt.sign(claims2, Buffer.from('another-key-another-key-another-key!'), { algorithm: 'HS256' }),
      jwt.sign({ ...claims2, iss: 'someone-else' }, key, { algorithm: 'HS256' }),
      jwt.sign({ ...claims2, aud: 'another-audience' }, key, { algorithm: 'HS256' }),
      jwt.sign(claims2, key, { algorithm: 'HS512' }),
      'not.a.token',
    ];
    for (const accessToken of forged) {
      const reply = await refresh({ accessToken, refreshToken: pair2.refreshToken });
      expect(reply.status, accessToken).to.equal(401);
      expect(reply.body.messages).to.deep.equal([{ code: 'Security_InvalidAccessToken', message: 'Invalid access token', severity: 'Error', type: 'Security' }]);
    }
    expect(TEST_ISSUER).to.be.a('string');
    expect(TEST_AUDIENCE).to.be.a('string');
  });

  it('refuses a refresh token that is wrong or belongs to another session, with the exact text', async () => {
    const bob = await loginPair('bob');
    const carol = await loginPair('carol');
    for (const body of [{ ...bob, refreshToken: 'x'.repeat(43) }, { accessToken: bob.accessToken, refreshToken: carol.refreshToken }]) {
      const reply = await refresh(body);
      expect(reply.status).to.equal(401);
      expect(reply.body.messages).to.deep.equal([{ code: 'Security_InvalidRefreshToken', message: 'Invalid refresh token', severity: 'Error', type: 'Security' }]);
    }
  });

  it('two concurrent refreshes with the same token both succeed inside the grace window, with the same successor', async () => {
    const pair = await loginPair();
    const [a, b] = await Promise.all([refresh(pair), refresh(pair)]);
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    const [nextA, nextB] = [a.body.result as Pair, b.body.result as Pair];
    expect(nextA.refreshToken).to.equal(nextB.refreshToken);
    // Both clients can go on: the second one's refresh, within the window, gets the first one's successor again.
    const [again, alsoAgain] = [await refresh(nextA), await refresh(nextB)];
    expect([again.status, alsoAgain.status]).to.deep.equal([200, 200]);
    expect((again.body.result as Pair).refreshToken).to.equal((alsoAgain.body.result as Pair).refreshToken);
  });

  it('ten parallel refreshes with one token never fork the session: after the grace window one refresh token of it works', async () => {
    const pair = await loginPair();
    const replies = await Promise.all(Array.from({ length: 10 }, () => refresh(pair)));
    expect(replies.map((r) => r.status)).to.deep.equal(Array(10).fill(200));
    const answered = replies.map((r) => r.body.result as Pair);
    for (const next of answered) expect((await server.call('/sales-order/43659', { token: next.accessToken })).status).to.equal(200);

    await sleep(1300);
    // Each refresh token the burst was answered, tried once after the window: at most one may work. It is the one all
    // were answered, so every client of the burst goes on.
    const distinct = [...new Set(answered.map((p) => p.refreshToken))];
    const tried = [];
    for (const refreshToken of distinct) tried.push(await refresh({ accessToken: answered[0].accessToken, refreshToken }));
    expect(tried.filter((r) => r.status === 200), `${distinct.length} distinct refresh tokens`).to.have.length(1);
    expect(distinct).to.have.length(1);
    const successor = tried[0].body.result as Pair;
    expect((await server.call('/sales-order/43659', { token: successor.accessToken })).status).to.equal(200);
    expect((await refresh(successor)).status).to.equal(200);
  });

  it('a thief who refreshes together with the owner holds the same successor, so its later use is a reuse that revokes the session', async () => {
    const pair = await loginPair();
    const [owner, thief] = (await Promise.all([refresh(pair), refresh(pair)])).map((r) => r.body.result as Pair);
    const ownerNext = await refresh(owner);
    expect(ownerNext.status).to.equal(200);
    await sleep(1300);
    const stolen = await refresh(thief);
    expect(stolen.status).to.equal(401);
    expect(stolen.body.messages[0].code).to.equal('Security_InvalidRefreshToken');
    // Theft detected: every token of that login ends, the owner's newest included.
    expect((await refresh(ownerNext.body.result as Pair)).status).to.equal(401);
    expect((await server.call('/sales-order/43659', { token: (ownerNext.body.result as Pair).accessToken })).status).to.equal(401);
  });

  it('reuse of a rotated-out token after the grace window revokes the whole session', async () => {
    const pair = await loginPair();
    const next = (await refresh(pair)).body.result as Pair;
    // In use before the theft is detected, so the server already knows its session as active.
    expect((await server.call('/sales-order/43659', { token: next.accessToken })).status).to.equal(200);
    await sleep(1300);
    const reuse = await refresh(pair);
    expect(reuse.status).to.equal(401);
    expect(reuse.body.messages[0].code).to.equal('Security_InvalidRefreshToken');
    // Every token of that login is dead: the newest refresh token and the access tokens.
    expect((await refresh(next)).status).to.equal(401);
    const call = await server.call('/sales-order/43659', { token: next.accessToken });
    expect(call.status).to.equal(401);
    expect(call.body.messages[0].code).to.equal('Security_TokenInvalid');
    // Other logins of the same user are untouched.
    expect((await refresh(await loginPair())).status).to.equal(200);
  });

  it('a session past its absolute lifetime cannot refresh', async () => {
    const pair = await loginPair();
    const sid = (jwt.decode(pair.accessToken) as { sid: string }).sid;
    const { db, values } = server.infrastructure.storage;
    await db.updateTable('auth_session').set({ expires_date: values.date(new Date(Date.now() - 1000)) }).where('session_id', '=', sid).execute();
    const reply = await refresh(pair);
    expect(reply.status).to.equal(401);
    expect(reply.body.messages[0].code).to.equal('Security_InvalidRefreshToken');
  });

  it('a disabled user: refresh fails, access tokens and cookie sessions stop at once', async () => {
    await addUser(server, 'dave', 'dave-password-1', ['Clerk']);
    const pair = await loginPair('dave');
    const cookieLogin = await server.call('/auth/cookie', { method: 'POST', token: null, body: { userName: 'dave', password: 'dave-password-1' } });
    const cookie = cookieLogin.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    expect((await server.call('/sales-order/43659', { token: null, headers: { Cookie: cookie } })).status).to.equal(200);
    expect((await server.call('/sales-order/43659', { token: pair.accessToken })).status).to.equal(200);
    await withErrorScope(() => server.services.users.disable('dave'));
    expect((await server.call('/sales-order/43659', { token: pair.accessToken })).status).to.equal(401);
    expect((await server.call('/sales-order/43659', { token: null, headers: { Cookie: cookie } })).status).to.equal(401);
    expect((await refresh(pair)).status).to.equal(401);
    const relogin = await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'dave', password: 'dave-password-1' } });
    expect(relogin.status).to.equal(401);
    expect(relogin.body.messages[0].code).to.equal('Login_InvalidCredentials');
  });

  it('a session ended by another process stops its access tokens within Authentication:SessionRecheckSeconds', async () => {
    expect(server.config.Authentication.SessionRecheckSeconds).to.equal(1);
    const pair = await loginPair();
    expect((await server.call('/sales-order/43659', { token: pair.accessToken })).status).to.equal(200);
    // Written straight to the store, as another instance or the CLI would: this server's services are not told.
    const sid = (jwt.decode(pair.accessToken) as { sid: string }).sid;
    const { db, values } = server.infrastructure.storage;
    await db.updateTable('auth_session').set({ revoked_date: values.date(new Date()) }).where('session_id', '=', sid).execute();
    let last: Awaited<ReturnType<typeof server.call>> | undefined;
    await until(async () => (last = await server.call('/sales-order/43659', { token: pair.accessToken })).status === 401,
      'the revoked session to be noticed', 5_000, 50);
    expect(last!.body.messages[0].code).to.equal('Security_TokenInvalid');
    expect(last!.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
  });

  it('token rotation resets refresh tokens; access tokens live until they expire', async () => {
    const pair = await loginPair('carol');
    await withErrorScope(() => server.services.tokens.rotate('carol'));
    expect((await server.call('/sales-order/43659', { token: pair.accessToken })).status).to.equal(200);
    const reply = await refresh(pair);
    expect(reply.status).to.equal(401);
    expect(reply.body.messages[0].message).to.equal('Invalid refresh token');
  });
});
