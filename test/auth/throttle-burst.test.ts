import { expect } from 'chai';
import { CHECKS_AT_ONCE, checksWaitingPeak, resetChecksWaitingPeak } from 'restlayer';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { addUser } from '../support/users.js';
import { describeStores } from '../support/stores.js';

/** How many answers had each status, e.g. { 401: 3, 429: 17 }. */
const tally = (replies: Reply[]) => replies.reduce<Record<number, number>>((t, r) => ({ ...t, [r.status]: (t[r.status] ?? 0) + 1 }), {});

let net = 0;
/** A client address no other request of the run uses. */
const freshAddress = () => `10.${Math.floor(++net / 250) % 250}.${net % 250}.7`;

// Runs on the store of the run: counters in memory (SQLite runs) or in Redis (RESTLAYER_TEST_REDIS=true).
describeStores('login throttling under concurrency', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      config: {
        Server: { TrustProxy: true },
        // MaxPendingChecks high: these bursts must meet the counters, not the bound on checks in hand.
        Authentication: { PasswordHashCost: 10, Throttle: { AccountFailures: 3, AddressFailures: 6, WindowSeconds: 60, MaxPendingChecks: 100 } },
      },
    });
    await addUser(server, 'gina', 'gina-password-1');
    await addUser(server, 'hugo', 'hugo-password-1');
    await addUser(server, 'ivan', 'ivan-password-1');
  });
  after(() => server.stop());

  const attempt = (userName: string, password: string, address: string) =>
    server.call('/auth/jwt', { method: 'POST', token: null, body: { userName, password }, headers: { 'X-Forwarded-For': address } });

  function expectThrottled(replies: Reply[]) {
    for (const r of replies) {
      expect(r.body.messages.map((m) => m.code)).to.deep.equal(['Request_Throttled']);
      expect(Number(r.headers.get('Retry-After'))).to.be.within(1, 60);
    }
  }

  it('30 wrong passwords for one account sent at once get exactly the limit of guesses; the right one afterwards is refused too', async () => {
    // Each from its own address, so only the account's counter can stop them.
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt('gina', `guess-${i}`, freshAddress())));
    expect(tally(burst)).to.deep.equal({ 401: 3, 429: 27 });
    expectThrottled(burst.filter((r) => r.status === 429));
    const right = await attempt('gina', 'gina-password-1', freshAddress());
    expect(right.status).to.equal(429);
    expectThrottled([right]);
    expect(right.body.result).to.equal(undefined);
  });

  it('the right password sent with a burst is checked only if it got one of the places, and a burst after it still stops at the limit', async () => {
    const burst = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => attempt('hugo', `guess-${i}`, freshAddress())),
      attempt('hugo', 'hugo-password-1', freshAddress()),
    ]);
    const right = burst.pop()!;
    // Which requests reach the counter first is up to the network: the right one succeeds only if it came before
    // the account was closed, and then its place is given back only once it is done (perhaps after the burst).
    expect(right.status).to.be.oneOf([200, 429]);
    const guesses = tally(burst);
    expect(guesses[401]).to.be.at.most(3);
    if (right.status === 429) expect(guesses[401]).to.equal(3);
    expect(guesses[401] + guesses[429]).to.equal(20);
    expect((await attempt('hugo', 'hugo-password-1', freshAddress())).status).to.equal(429);
  });

  it('30 right passwords for one account at once: the excess is refused without spending points, and the next login succeeds', async () => {
    await addUser(server, 'kurt', 'kurt-password-1');
    const burst = await Promise.all(Array.from({ length: 30 }, () => attempt('kurt', 'kurt-password-1', freshAddress())));
    const counts = tally(burst);
    expect(counts[200]).to.be.within(1, 30);
    expect(counts[200] + (counts[429] ?? 0)).to.equal(30);
    // The refusals met a counter full of checks still under way: a retry can succeed as soon as they end.
    for (const r of burst.filter((x) => x.status === 429)) expect(r.headers.get('Retry-After')).to.equal('1');
    // Nothing was spent: the account still has its full count of failures, then closes as before.
    expect((await attempt('kurt', 'kurt-password-1', freshAddress())).status).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await attempt('kurt', `wrong-${i}`, freshAddress())).status).to.equal(401);
    expect((await attempt('kurt', 'kurt-password-1', freshAddress())).status).to.equal(429);
  });

  it('right logins of many accounts from one address at once leave the address open', async () => {
    const office = freshAddress();
    const names = Array.from({ length: 12 }, (_, i) => `lena-${i}`);
    for (const name of names) await addUser(server, name, `${name}-password`);
    const burst = await Promise.all(names.map((name) => attempt(name, `${name}-password`, office)));
    expect(tally(burst)[200]).to.be.at.least(1);
    for (const r of burst.filter((x) => x.status === 429)) expect(r.headers.get('Retry-After')).to.equal('1');
    // The refusals spent nothing and the successes gave theirs back: the address has its six failures left.
    const failures = await Promise.all(Array.from({ length: 6 }, (_, i) => attempt(`stranger-l${i}`, 'wrong', office)));
    expect(tally(failures)).to.deep.equal({ 401: 6 });
    expect((await attempt('lena-0', 'lena-0-password', office)).status).to.equal(429);
  });

  it('30 wrong logins for different accounts from one address at once get exactly the address limit', async () => {
    const from = freshAddress();
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(`nobody-${i}`, 'wrong', from)));
    expect(tally(burst)).to.deep.equal({ 401: 6, 429: 24 });
    expectThrottled(burst.filter((r) => r.status === 429));
    const blocked = await attempt('ivan', 'ivan-password-1', from);
    expect(blocked.status).to.equal(429);
    expect(blocked.body.messages[0].message).to.match(/^Too many login attempts\. Try again in \d+ seconds?\.$/);
    // Refusals by the address do not count against the account they name: three of them, then ivan from elsewhere.
    for (let i = 0; i < 3; i++) expect((await attempt('ivan', `wrong-${i}`, from)).status).to.equal(429);
    expect((await attempt('ivan', 'ivan-password-1', freshAddress())).status).to.equal(200);
  });

  it('a success gives back its own place but does not forgive the failures before it', async () => {
    await addUser(server, 'jana', 'jana-password-1');
    const from = freshAddress();
    expect((await attempt('jana', 'wrong-1', from)).status).to.equal(401);
    expect((await attempt('jana', 'wrong-2', from)).status).to.equal(401);
    expect((await attempt('jana', 'jana-password-1', from)).status).to.equal(200);
    // Two failures are still counted; the success was not: one more guess is left, then the account is closed.
    expect((await attempt('jana', 'wrong-3', from)).status).to.equal(401);
    expect((await attempt('jana', 'jana-password-1', from)).status).to.equal(429);
  });

  it('successful logins do not use up an address (many people behind one office address)', async () => {
    const office = freshAddress();
    // One after another: more logins of one account at once than AccountFailures are refused, right password or not.
    for (let i = 0; i < 12; i++) expect((await attempt('ivan', 'ivan-password-1', office)).status).to.equal(200);
    // The address still allows its full count of failures afterwards.
    const failures = await Promise.all(Array.from({ length: 6 }, (_, i) => attempt(`stranger-${i}`, 'wrong', office)));
    expect(tally(failures)).to.deep.equal({ 401: 6 });
    expect((await attempt('stranger-x', 'wrong', office)).status).to.equal(429);
  });
});

describeStores('password checks in hand are bounded (Authentication:Throttle:MaxPendingChecks)', function () {
  this.timeout(60_000);
  const maxPending = 2;
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      config: {
        Server: { TrustProxy: true },
        // The production hash cost, so a check takes long enough for a burst to arrive while the first ones run.
        Authentication: { PasswordHashCost: 15, Throttle: { AccountFailures: 1000, AddressFailures: 1000, WindowSeconds: 60, MaxPendingChecks: maxPending } },
      },
    });
    await addUser(server, 'kim', 'kim-password-1');
    // The decoy hash unknown names are checked against is made on first use; make it now, outside the burst.
    await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'nobody', password: 'x' } });
  });
  after(() => server.stop());

  it('a burst beyond running + MaxPendingChecks is refused at once with Retry-After, and no more checks wait than the bound', async () => {
    resetChecksWaitingPeak();
    const answered: number[] = [];
    const burst = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
      const reply = await server.call('/auth/jwt', {
        method: 'POST', token: null, body: { userName: `nobody-${i}`, password: 'wrong' }, headers: { 'X-Forwarded-For': freshAddress() },
      });
      answered.push(reply.status);
      return reply;
    }));
    const refused = burst.filter((r) => r.status === 429);
    expect(refused.length, JSON.stringify(tally(burst))).to.be.at.least(1);
    expect(tally(burst)[401]).to.be.at.least(CHECKS_AT_ONCE + maxPending);
    for (const r of refused) {
      expect(r.body.messages.map((m) => m.code)).to.deep.equal(['Request_Throttled']);
      expect(r.body.messages[0].message).to.equal('Too many logins are being checked at the moment. Try again in 1 second.');
      expect(r.headers.get('Retry-After')).to.equal('1');
    }
    // Refused at once: the first refusal came back before the first password check finished.
    expect(answered.indexOf(429)).to.be.below(answered.indexOf(401));
    expect(checksWaitingPeak()).to.be.at.most(maxPending);
    // Nothing is held afterwards: a login goes through.
    expect((await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'kim', password: 'kim-password-1' } })).status).to.equal(200);
  });

  it('the refusals are logged with the client address and the reason, never the account name', async () => {
    const refusals = server.logs.filter((l) => l.msg === 'login refused');
    expect(refusals.length).to.be.at.least(1);
    for (const line of refusals) {
      expect(line).to.have.keys('time', 'level', 'msg', 'reason', 'clientAddress', 'retryAfter', 'requestId');
      expect(line.reason).to.equal('busy');
      expect(line.clientAddress).to.match(/^10\.\d+\.\d+\.7$/);
    }
  });
});
