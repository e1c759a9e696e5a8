import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { type Reply, TEST_AUDIENCE, TEST_ISSUER, TEST_KEY, type TestServer, startTestServer } from '../support/server.js';
import { handMadeToken, mint, newKey, tamperPayload, tamperSignature } from '../support/tokens.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const secured = '/lookup-table/sales-order-status';
const testKey = Buffer.from(TEST_KEY, 'base64');
const now = () => Math.floor(Date.now() / 1000);

/** Claims of a token the test server would accept, lifetime 10 minutes. */
const goodClaims = (extra: Record<string, unknown> = {}) => ({
  sub: 'tester', name: 'Test User', role: ['Clerk'], iss: TEST_ISSUER, aud: TEST_AUDIENCE, iat: now(), exp: now() + 600, ...extra,
});

function expectRefused(reply: Reply, code: 'Security_Unauthenticated' | 'Security_TokenExpired' | 'Security_TokenInvalid') {
  expect(reply.status, reply.text).to.equal(401);
  expect(reply.body.messages.map((m) => m.code), reply.text).to.deep.equal([code]);
  expect(reply.body.messages[0]).to.include({ severity: 'Error', type: 'Security' });
  expect(reply.body).to.not.have.property('result');
  expect(reply.headers.get('www-authenticate'), 'WWW-Authenticate').to.match(/^Bearer(\s|$)/);
}

describeOneStore('secured calls (contract part 4)', WHY_ONE_STORE.platform, () => {
  describe('variant A bearer tokens', () => {
    let server: TestServer;
    const second = newKey();
    const partner = newKey();
    before(async () => {
      server = await startTestServer({
        sampleData: false,
        env: {
          Authentication__Schemes__Bearer__SigningKeys__1__Issuer: TEST_ISSUER,
          Authentication__Schemes__Bearer__SigningKeys__1__Value: second,
          Authentication__Schemes__Bearer__SigningKeys__1__Id: 'second-key',
          Authentication__Schemes__Bearer__SigningKeys__2__Issuer: 'partner-issuer',
          Authentication__Schemes__Bearer__SigningKeys__2__Value: partner,
        },
      });
    });
    after(() => server?.stop());

    const call = (token: string | null, headers: Record<string, string> = {}) => server.call(secured, { token, headers });

    it('accepts a valid token', async () => {
      const reply = await call(server.token());
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.body.result.type).to.equal('sales-order-status');
      // The scheme name is case-insensitive (RFC 7235).
      expect((await call(null, { Authorization: `bearer ${server.token()}` })).status).to.equal(200);
    });

    it('missing credentials: 401 Security_Unauthenticated', async () => {
      expectRefused(await call(null), 'Security_Unauthenticated');
    });

    it('another scheme (Basic) counts as no credentials: 401 Security_Unauthenticated, WWW-Authenticate: Bearer', async () => {
      expectRefused(await call(null, { Authorization: 'Basic dGVzdGVyOnNlY3JldA==' }), 'Security_Unauthenticated');
    });

    it('expired token: 401 Security_TokenExpired', async () => {
      expectRefused(await call(handMadeToken({ alg: 'HS256', typ: 'JWT' }, goodClaims({ iat: now() - 3600, exp: now() - 600 }), testKey)), 'Security_TokenExpired');
    });

    it('tampered signature: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(tamperSignature(server.token())), 'Security_TokenInvalid');
    });

    it('tampered claims under the original signature: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(tamperPayload(server.token({ role: ['Viewer'] }), { role: ['Administrator'] })), 'Security_TokenInvalid');
    });

    it('signed with a key the server does not have: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(mint({ key: newKey(), issuer: TEST_ISSUER, audience: TEST_AUDIENCE })), 'Security_TokenInvalid');
    });

    it('wrong issuer: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(server.token({}, { issuer: 'someone-else' })), 'Security_TokenInvalid');
      expectRefused(await call(handMadeToken({ alg: 'HS256', typ: 'JWT' }, goodClaims({ iss: undefined }), testKey)), 'Security_TokenInvalid');
    });

    it('wrong or missing audience: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(server.token({}, { audience: 'other-clients' })), 'Security_TokenInvalid');
      expectRefused(await call(handMadeToken({ alg: 'HS256', typ: 'JWT' }, goodClaims({ aud: undefined }), testKey)), 'Security_TokenInvalid');
    });

    it('alg none: 401 Security_TokenInvalid', async () => {
      for (const alg of ['none', 'None', 'NONE']) {
        expectRefused(await call(handMadeToken({ alg, typ: 'JWT' }, goodClaims())), 'Security_TokenInvalid');
      }
    });

    it('HS384, HS512 or an asymmetric algorithm, even with the right key: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(server.token({}, { algorithm: 'HS512' })), 'Security_TokenInvalid');
      expectRefused(await call(server.token({}, { algorithm: 'HS384' })), 'Security_TokenInvalid');
      expectRefused(await call(handMadeToken({ alg: 'HS512', typ: 'JWT' }, goodClaims(), testKey, 'sha512')), 'Security_TokenInvalid');
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const rs256 = jwt.sign(goodClaims(), privateKey, { algorithm: 'RS256' });
      expectRefused(await call(rs256), 'Security_TokenInvalid');
    });

    it('a token that says HS256 but carries an HS512 signature: 401 Security_TokenInvalid', async () => {
      const header = { alg: 'HS256', typ: 'JWT' };
      expectRefused(await call(handMadeToken(header, goodClaims(), testKey, 'sha512')), 'Security_TokenInvalid');
    });

    it('a token without exp: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(handMadeToken({ alg: 'HS256', typ: 'JWT' }, goodClaims({ exp: undefined }), testKey)), 'Security_TokenInvalid');
      expectRefused(await call(handMadeToken({ alg: 'HS256', typ: 'JWT' }, goodClaims({ exp: 'tomorrow' }), testKey)), 'Security_TokenInvalid');
    });

    it('a token not valid before a time to come: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(handMadeToken({ alg: 'HS256', typ: 'JWT' }, goodClaims({ nbf: now() + 300 }), testKey)), 'Security_TokenInvalid');
    });

    it('a token naming no user: 401 Security_TokenInvalid', async () => {
      expectRefused(await call(handMadeToken({ alg: 'HS256', typ: 'JWT' }, goodClaims({ sub: undefined, name: undefined }), testKey)), 'Security_TokenInvalid');
    });

    it('malformed tokens: 401 Security_TokenInvalid', async () => {
      const valid = server.token();
      for (const token of ['abc', 'not.a.jwt', 'a.b.c.d', `${valid}.extra`, valid.split('.').slice(0, 2).join('.'), `${valid.slice(0, -10)}!!!`,
        `${Buffer.from('{"alg":"HS256"').toString('base64url')}.${valid.split('.')[1]}.${valid.split('.')[2]}`]) {
        expectRefused(await call(token), 'Security_TokenInvalid');
      }
    });

    it('accepts a token signed by a second key of the issuer, with or without its kid', async () => {
      const withKid = mint({ key: second, issuer: TEST_ISSUER, audience: TEST_AUDIENCE, sign: { keyid: 'second-key' } });
      expect((await call(withKid)).status).to.equal(200);
      const withoutKid = mint({ key: second, issuer: TEST_ISSUER, audience: TEST_AUDIENCE });
      expect((await call(withoutKid)).status).to.equal(200);
    });

    it('a kid pins its key: another key under that kid is refused', async () => {
      const wrong = mint({ key: TEST_KEY, issuer: TEST_ISSUER, audience: TEST_AUDIENCE, sign: { keyid: 'second-key' } });
      expectRefused(await call(wrong), 'Security_TokenInvalid');
    });

    it('accepts a token of another configured issuer signed by that issuer\'s key, and only by it', async () => {
      expect((await call(mint({ key: partner, issuer: 'partner-issuer', audience: TEST_AUDIENCE }))).status).to.equal(200);
      expectRefused(await call(mint({ key: TEST_KEY, issuer: 'partner-issuer', audience: TEST_AUDIENCE })), 'Security_TokenInvalid');
      expectRefused(await call(mint({ key: partner, issuer: TEST_ISSUER, audience: TEST_AUDIENCE })), 'Security_TokenInvalid');
    });

    it('an authenticated caller without the permission: 403 Security_Forbidden; with a role granting it: 200', async () => {
      const user = await server.call('/lookup-table/operators', { method: 'DELETE', token: server.token({ role: ['Clerk'] }) });
      expect(user.status, user.text).to.equal(403);
      expect(user.body.messages.map((m) => m.code)).to.deep.equal(['Security_Forbidden']);
      expect(user.body).to.not.have.property('result');

      const admin = await server.call('/lookup-table/operators', { method: 'DELETE', token: server.token({ role: ['Clerk', 'Administrator'] }) });
      expect(admin.status, admin.text).to.equal(200);
      expect(admin.body).to.deep.equal({ messages: [] });

      const dotnetRole = server.token({ role: undefined, 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role': 'Administrator' });
      expect((await server.call('/lookup-table/operators', { method: 'DELETE', token: dotnetRole })).status).to.equal(200);
    });

    it('checks the token before the role: a bad token on an admin route is 401, not 403', async () => {
      expectRefused(await server.call('/lookup-table/operators', { method: 'DELETE', token: null }), 'Security_Unauthenticated');
      expectRefused(await server.call('/lookup-table/operators', { method: 'DELETE', token: tamperSignature(server.token({ role: ['Administrator'] })) }), 'Security_TokenInvalid');
    });
  });

  describe('variant B (AuthConfig)', () => {
    let server: TestServer;
    const secret = 'variant-b-secret-used-as-utf8-bytes-é-ok';
    const b = (extra: Partial<Parameters<typeof mint>[0]> = {}) =>
      mint({ key: secret, utf8: true, issuer: 'issuer-b', audience: 'audience-b', ...extra });
    before(async () => {
      server = await startTestServer({
        sampleData: false,
        config: { Authentication: { Variant: 'B' } },
        env: { AuthConfig__SigningKey: secret, AuthConfig__Issuer: 'issuer-b', AuthConfig__Audience: 'audience-b' },
      });
    });
    after(() => server?.stop());

    const call = (token: string | null) => server.call(secured, { token });

    it('accepts a token signed with the UTF-8 bytes of AuthConfig:SigningKey', async () => {
      const reply = await call(b());
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.body.result.type).to.equal('sales-order-status');
    });

    it('refuses a token signed with the variant A key, or with the key read as Base64', async () => {
      expectRefused(await call(mint({ key: TEST_KEY, issuer: 'issuer-b', audience: 'audience-b' })), 'Security_TokenInvalid');
      expectRefused(await call(server.token()), 'Security_TokenInvalid');
      expectRefused(await call(b({ utf8: false })), 'Security_TokenInvalid');
    });

    it('checks the issuer and audience of AuthConfig', async () => {
      expectRefused(await call(b({ issuer: TEST_ISSUER })), 'Security_TokenInvalid');
      expectRefused(await call(b({ audience: TEST_AUDIENCE })), 'Security_TokenInvalid');
    });

    it('tells an expired token from a missing one', async () => {
      expectRefused(await call(handMadeToken({ alg: 'HS256', typ: 'JWT' }, { sub: 'tester', iss: 'issuer-b', aud: 'audience-b', iat: now() - 7200, exp: now() - 3600 }, Buffer.from(secret, 'utf8'))), 'Security_TokenExpired');
      expectRefused(await call(null), 'Security_Unauthenticated');
    });
  });
});
