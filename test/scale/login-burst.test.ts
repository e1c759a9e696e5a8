import { join } from 'node:path';
import { expect } from 'chai';
import { type Deployment, deployment } from '../support/cluster-env.js';
import { requireServices } from '../support/hooks.js';
import { type UrlReply, callUrl } from '../support/http.js';
import { type ServeProcess, childEnv, killChildren, runCli, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { dropRedisKeys } from '../support/test-stores.js';
import { newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const local = ['--host', '127.0.0.1', '--port', '0'];
/** Limits of these deployments; MaxPendingChecks high so that the bursts meet the shared counters. */
const limits = {
  Server__TrustProxy: 'true',
  Authentication__Throttle__AccountFailures: '4',
  Authentication__Throttle__AddressFailures: '6',
  Authentication__Throttle__MaxPendingChecks: '100',
};

const tally = (replies: UrlReply[]) => replies.reduce<Record<number, number>>((t, r) => ({ ...t, [r.status]: (t[r.status] ?? 0) + 1 }), {});
let net = 0;
const freshAddress = () => `10.77.${Math.floor(++net / 250) % 250}.${net % 250}`;

const attempt = (url: string, userName: string, password: string, address: string) =>
  callUrl(`${url}/auth/jwt`, { method: 'POST', body: { userName, password }, headers: { 'X-Forwarded-For': address } });

/** The same bursts against any deployment; `urls` are its entry points, used in turn. */
function burstTests(urls: () => string[]) {
  const at = (i: number) => urls()[i % urls().length];

  it('30 wrong passwords for one account at once get exactly the account limit; the right one afterwards gets 429', async () => {
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(at(i), 'olga', `guess-${i}`, freshAddress())));
    expect(tally(burst)).to.deep.equal({ 401: 4, 429: 26 });
    for (const r of burst.filter((x) => x.status === 429)) expect(r.body.messages[0].code).to.equal('Request_Throttled');
    for (const url of urls()) {
      const right = await attempt(url, 'olga', 'olga-password-1', freshAddress());
      expect(right.status).to.equal(429);
      expect(Number(right.headers.get('Retry-After'))).to.be.at.least(1);
    }
  });

  it('30 right passwords for one account at once: the refusals spend nothing, and the next right login succeeds everywhere', async () => {
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(at(i), 'pia', 'pia-password-1', freshAddress())));
    const counts = tally(burst);
    expect(counts[200]).to.be.at.least(1);
    expect(counts[200] + (counts[429] ?? 0)).to.equal(30);
    for (const r of burst.filter((x) => x.status === 429)) expect(r.headers.get('Retry-After')).to.equal('1');
    for (const url of urls()) expect((await attempt(url, 'pia', 'pia-password-1', freshAddress())).status).to.equal(200);
    // The account's four failures are all still there, and then it closes.
    for (let i = 0; i < 4; i++) expect((await attempt(at(i), 'pia', `wrong-${i}`, freshAddress())).status).to.equal(401);
    expect((await attempt(at(0), 'pia', 'pia-password-1', freshAddress())).status).to.equal(429);
  });

  it('30 wrong logins for different accounts from one address at once get exactly the address limit', async () => {
    const from = freshAddress();
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(at(i), `nobody-${i}`, 'wrong', from)));
    expect(tally(burst)).to.deep.equal({ 401: 6, 429: 24 });
  });
}

describeOneStore('login bursts: serve --workers 2 (counters on the cluster primary)', WHY_ONE_STORE.scale, function () {
  this.timeout(60_000);
  let server: ServeProcess;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    const dir = makeTempDir();
    env = childEnv({
      Storage__Sqlite__Path: join(dir, 'burst.db'), Storage__SampleData: 'false', Authentication__PasswordHashCost: '10', Log__Level: 'info', ...limits,
      // A key the CLI shares, for its unlock token.
      Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer', Authentication__Schemes__Bearer__SigningKeys__0__Value: newKey(),
    });
    for (const name of ['olga', 'pia']) {
      const add = await runCli(['user', 'add', name, '--role', 'Clerk', '--password', `${name}-password-1`], { env, cwd: dir });
      expect(add.code, add.stderr).to.equal(0);
    }
    server = await startServe(['--workers', '2', ...local], { env, cwd: dir });
    await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'two workers serving');
  });
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  burstTests(() => [server.url]);

  it('user unlock reaches the primary through a worker: the locked account logs in again on every worker', async () => {
    // olga is locked by the first burst (counters on the primary); the CLI asks the server, as without Redis it must.
    expect((await attempt(server.url, 'olga', 'olga-password-1', freshAddress())).status).to.equal(429);
    const run = await runCli(['user', 'unlock', 'olga', '--url', server.url], { env });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal('login throttling of user olga cleared\n');
    // Connections are spread over the workers: four logins in a row, each on a new connection, all succeed.
    for (let i = 0; i < 4; i++) expect((await attempt(server.url, 'olga', 'olga-password-1', freshAddress())).status).to.equal(200);
  });
});

describeOneStore('login bursts: two instances on PostgreSQL and Redis (counters in Redis)', WHY_ONE_STORE.scale, function () {
  this.timeout(60_000);
  let d: Deployment;
  let a: ServeProcess;
  let b: ServeProcess;

  before(async function () {
    await requireServices(this, ['postgres', 'redis'], 'the multi-instance login burst tests');
    d = await deployment(limits);
    for (const name of ['olga', 'pia']) {
      const add = await runCli(['user', 'add', name, '--role', 'Clerk', '--password-stdin'], { env: d.env, input: `${name}-password-1\n` });
      expect(add.code, add.stderr).to.equal(0);
    }
    [a, b] = await Promise.all([startServe(local, { env: d.env }), startServe(local, { env: d.env })]);
  });
  after(async () => {
    await killChildren();
    if (d) {
      await d.drop();
      await dropRedisKeys(d.prefix);
    }
  });

  burstTests(() => [a.url, b.url]);
});
