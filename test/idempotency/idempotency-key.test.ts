import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { routeFolder } from '../support/route-fixtures.js';
import { removeTempDirs } from '../support/temp.js';
import { until } from '../support/wait.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const order = (comment: string) => ({ customerId: 11003, status: 1, onlineOrderFlag: false, comment });

/** What a repeat must reproduce: status, Location and the body, byte for byte. */
const answerOf = (reply: Reply) => ({ status: reply.status, location: reply.headers.get('Location'), text: reply.text });

describeStores('Idempotency-Key on POST (contract part 3, "Retries")', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { RestAPI: { IdempotencyKeepSeconds: 2 } }, logLevel: 'error' });
  });
  after(() => server?.stop());

  const orderCount = async () => {
    const reply = await server.call('/sales-order?getTotalCount=true&take=1');
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.totalCount as number;
  };
  const create = (key: string | undefined, body: unknown, token?: string) =>
    server.call('/sales-order', { method: 'POST', body, token, headers: key === undefined ? {} : { 'Idempotency-Key': key } });

  it('a repeat answers the first outcome (status, Location, body) and writes nothing', async () => {
    const before = await orderCount();
    const first = await create('retry-1', order('first'));
    expect(first.status, first.text).to.equal(201);
    expect(first.headers.get('Location')).to.match(/^\/sales-order\/\d+$/);
    for (let i = 0; i < 3; i++) {
      const again = await create('retry-1', order('first'));
      expect(answerOf(again)).to.deep.equal(answerOf(first));
      expect(again.headers.get('Idempotent-Replayed')).to.equal('true');
    }
    expect(await orderCount()).to.equal(before + 1);
  });

  it('a refused operation (4xx) is answered again the same way; without a key every POST runs', async () => {
    const unknownCustomer = { ...order('nobody'), customerId: 999_999 };
    const first = await create('refused-1', unknownCustomer);
    expect(first.status, first.text).to.equal(400);
    expect(answerOf(await create('refused-1', unknownCustomer))).to.deep.equal(answerOf(first));
    const before = await orderCount();
    await create(undefined, order('no key'));
    await create(undefined, order('no key'));
    expect(await orderCount()).to.equal(before + 2);
  });

  it('a repeat answers in the first answer\'s language and says so (Content-Language), whatever its own Accept-Language asks', async () => {
    // Refused by the operation (an unknown customer) and before it (a body the model refuses): both answers are kept.
    const refusals = [['lang-op', { ...order('sprache'), customerId: 999_999 }], ['lang-input', { ...order('sprache'), orderDate: 'gestern' }]] as const;
    for (const [key, body] of refusals) {
      const first = await server.call('/sales-order', { method: 'POST', body, headers: { 'Idempotency-Key': key, 'Accept-Language': 'de' } });
      expect(first.status, first.text).to.equal(400);
      expect(first.headers.get('Content-Language')).to.equal('de');
      const again = await server.call('/sales-order', { method: 'POST', body, headers: { 'Idempotency-Key': key, 'Accept-Language': 'en' } });
      expect(again.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(again.status).to.equal(400);
      expect(again.text, 'the first answer\'s body, its texts German').to.equal(first.text);
      expect(again.headers.get('Content-Language')).to.equal('de');
      expect(again.headers.get('Vary')).to.match(/accept-language/i);
    }
  });

  it('the same key with a different body is a 422 Request_IdempotencyMismatch and writes nothing', async () => {
    const first = await create('mismatch-1', order('one'));
    expect(first.status).to.equal(201);
    const before = await orderCount();
    const other = await create('mismatch-1', order('another'));
    expect(other.status, other.text).to.equal(422);
    expect(other.body.messages.map((m) => [m.code, m.property])).to.deep.equal([['Request_IdempotencyMismatch', 'Idempotency-Key']]);
    expect(await orderCount()).to.equal(before);
  });

  it('a repeat with the same object in another key order and property-name case is a repeat (the model reads it alike), not a 422', async () => {
    const first = await create('canonical-1', { customerId: 11003, status: 1, onlineOrderFlag: false, comment: 'Same Order' });
    expect(first.status, first.text).to.equal(201);
    const before = await orderCount();
    for (const body of [
      { comment: 'Same Order', onlineOrderFlag: false, status: 1, customerId: 11003 },
      { COMMENT: 'Same Order', OnlineOrderFlag: false, Status: 1, CUSTOMERID: 11003 },
    ]) {
      const again = await create('canonical-1', body);
      expect(answerOf(again), JSON.stringify(body)).to.deep.equal(answerOf(first));
      expect(again.headers.get('Idempotent-Replayed')).to.equal('true');
    }
    // Values keep their case: another comment is another request.
    const other = await create('canonical-1', { customerId: 11003, status: 1, onlineOrderFlag: false, comment: 'SAME ORDER' });
    expect([other.status, ...other.body.messages.map((m) => m.code)], other.text).to.deep.equal([422, 'Request_IdempotencyMismatch']);
    expect(await orderCount()).to.equal(before);
  });

  it('a key recorded before fingerprints were canonical (the hash of the body as parsed) still answers its repeat', async () => {
    const body = { status: 1, customerId: 11003, onlineOrderFlag: false, comment: 'recorded before the upgrade' };
    const first = await create('legacy-1', body);
    expect(first.status, first.text).to.equal(201);
    // As the previous version wrote it: the row's fingerprint hashed method, path and JSON.stringify of the parsed body.
    const keys = server.infrastructure.storage.db.withTables<{ idempotency_key: { key_hash: string; fingerprint: string; created_ms: number } }>();
    const row = await keys.selectFrom('idempotency_key').select('key_hash').orderBy('created_ms', 'desc').limit(1).executeTakeFirstOrThrow();
    const legacy = createHash('sha256').update(`POST\u0000/sales-order\u0000${JSON.stringify(body)}`).digest('hex');
    await keys.updateTable('idempotency_key').set({ fingerprint: legacy }).where('key_hash', '=', row.key_hash).execute();
    const before = await orderCount();
    const again = await create('legacy-1', body);
    expect(answerOf(again)).to.deep.equal(answerOf(first));
    expect((await create('legacy-1', { ...body, comment: 'another' })).status).to.equal(422);
    expect(await orderCount()).to.equal(before);
  });

  for (const n of [2, 20]) {
    it(`${n} requests with one key sent at once write once and all answer the first outcome`, async () => {
      const before = await orderCount();
      const replies = await Promise.all(Array.from({ length: n }, () => create(`together-${n}`, order(`together ${n}`))));
      expect(await orderCount()).to.equal(before + 1);
      const answers = replies.map(answerOf);
      expect(answers[0].status, answers[0].text).to.equal(201);
      for (const answer of answers) expect(answer).to.deep.equal(answers[0]);
    });
  }

  it('keys of different callers never meet', async () => {
    const before = await orderCount();
    const mine = await create('shared-key', order('mine'));
    const theirs = await create('shared-key', order('theirs'), server.token({ sub: 'someone-else' }));
    expect([mine.status, theirs.status]).to.deep.equal([201, 201]);
    expect(theirs.headers.get('Location')).to.not.equal(mine.headers.get('Location'));
    expect(theirs.headers.get('Idempotent-Replayed')).to.equal(null);
    expect(await orderCount()).to.equal(before + 2);
  });

  it('keys of different paths never meet', async () => {
    const created = await create('path-key', order('path'));
    expect(created.status).to.equal(201);
    const customer = await server.call('/customer', { method: 'POST', body: { name: 'Path Key Ltd' }, headers: { 'Idempotency-Key': 'path-key' } });
    expect(customer.status, customer.text).to.not.equal(422);
  });

  it('an invalid key is a 400 on the header, and nothing is written', async () => {
    const before = await orderCount();
    for (const key of ['', 'has space', 'x'.repeat(256), 'tab\tinside']) {
      const reply = await create(key, order('invalid key'));
      expect(reply.status, JSON.stringify(key)).to.equal(400);
      expect(reply.body.messages.map((m) => [m.code, m.property])).to.deep.equal([['Request_IdempotencyKeyInvalid', 'Idempotency-Key']]);
    }
    expect(await orderCount()).to.equal(before);
    expect((await create('k'.repeat(255), order('longest key'))).status).to.equal(201);
    expect((await create('~!#$%&*+-.^_`|', order('symbols'))).status).to.equal(201);
  });

  it('the OpenAPI document declares Idempotency-Key (and its 409 and 422) on secured POST operations, and nowhere else', async () => {
    const reply = await server.call('/openapi.json');
    const doc = reply.body.result as { paths: Record<string, Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, unknown>; security: unknown[] }>> };
    const keyed: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [verb, op] of Object.entries(operations)) {
        if (!(op.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IdempotencyKey')) continue;
        keyed.push(`${verb} ${path}`);
        expect(verb, path).to.equal('post');
        expect(op.security, path).to.not.deep.equal([]);
        expect(op.responses, path).to.include.keys('409', '422');
      }
    }
    expect(keyed).to.include.members(['post /sales-order', 'post /customer']);
    expect(keyed).to.not.include('post /auth/jwt');
  });

  it('a key is forgotten after RestAPI:IdempotencyKeepSeconds: the same request then runs again', async () => {
    const first = await create('expiring', order('expiring'));
    expect(first.status).to.equal(201);
    const before = await orderCount();
    await sleep(2_200);
    const later = await create('expiring', order('expiring'));
    expect(later.status).to.equal(201);
    expect(later.headers.get('Location')).to.not.equal(first.headers.get('Location'));
    expect(await orderCount()).to.equal(before + 1);
    // Every other key of this suite expired too: the cleanup that runs beside requests removes them all.
    const rows = () => server.infrastructure.storage.db.withTables<{ idempotency_key: { key_hash: string } }>()
      .selectFrom('idempotency_key').select('key_hash').execute();
    await until(async () => (await rows()).length === 1, 'expired keys removed');
  });
});

describeStores('Idempotency-Key with an operation that outlives the request timeout or meets a fault', function () {
  this.timeout(60_000);
  const state = globalThis as { idemRuns?: number; idemRelease?: () => void; idemFlakyRuns?: number; idemDoubtRuns?: number; idemBigRuns?: number; idemStuckRuns?: number };
  let server: TestServer;
  before(async () => {
    state.idemRuns = 0;
    state.idemFlakyRuns = 0;
    state.idemDoubtRuns = 0;
    state.idemBigRuns = 0;
    state.idemStuckRuns = 0;
    const dir = routeFolder({
      'slow.js': `export const POST = route({ summary: 'slow create', authenticated: true, body: model({ name: text() }),
        handle: async ({ body, created }) => {
          globalThis.idemRuns += 1;
          await new Promise((r) => { globalThis.idemRelease = r; });
          created('/slow/' + globalThis.idemRuns);
          return new Output({ name: body.name, run: globalThis.idemRuns });
        } });\n`,
      'flaky.js': `export const POST = route({ summary: 'fails once with the store unreachable', authenticated: true, body: model({ name: text() }),
        handle: async ({ body }) => {
          globalThis.idemFlakyRuns += 1;
          if (globalThis.idemFlakyRuns === 1) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
          return new Output({ name: body.name, run: globalThis.idemFlakyRuns });
        } });\n`,
      'stuck.js': `export const POST = route({ summary: 'never finishes, as if its process had died', authenticated: true, body: model({ name: text() }),
        handle: async () => {
          globalThis.idemStuckRuns += 1;
          return new Promise(() => {});
        } });\n`,
      'in-doubt.js': `export const POST = route({ summary: 'the store failed during COMMIT', authenticated: true, body: model({ name: text() }),
        handle: async () => {
          globalThis.idemDoubtRuns += 1;
          return new Output(undefined, [{ code: 'Storage_OutcomeUnknown', message: 'The store failed while saving.', severity: 'Error', type: 'System', status: 503 }]);
        } });\n`,
      'big.js': `export const POST = route({ summary: 'answers a large result', authenticated: true, body: model({ name: text() }),
        handle: async ({ created }) => {
          globalThis.idemBigRuns += 1;
          created('/big/' + globalThis.idemBigRuns);
          return new Output({ filler: 'x'.repeat(100000) });
        } });\n`,
    });
    server = await startTestServer({ routesDir: dir, config: { RestAPI: { RequestTimeoutSeconds: 1 } }, sampleData: false, logLevel: 'error' });
  });
  after(async () => {
    state.idemRelease?.();
    await server?.stop();
    removeTempDirs();
  });

  it('a timed-out write says its outcome is unknown (503 Request_OutcomeUnknown); its repeat answers the real outcome once there is one, and it ran once', async () => {
    const post = () => server.call('/slow', { method: 'POST', body: { name: 'late' }, headers: { 'Idempotency-Key': 'slow-1' } });
    const first = await post();
    expect(first.status, first.text).to.equal(503);
    expect(first.body.messages.map((m) => m.code)).to.deep.equal(['Request_OutcomeUnknown']);
    expect(first.headers.get('Retry-After')).to.equal('1');
    // Still running: a repeat waits for it as long as a request may take, then says so.
    const meanwhile = await post();
    expect(meanwhile.status, meanwhile.text).to.equal(409);
    expect(meanwhile.body.messages.map((m) => m.code)).to.deep.equal(['Request_InProgress']);
    expect(meanwhile.headers.get('Retry-After')).to.equal('1');
    state.idemRelease!();
    let repeat = await post();
    for (let i = 0; i < 50 && repeat.status === 409; i++) repeat = await post();
    expect(repeat.status, repeat.text).to.equal(201);
    expect(repeat.headers.get('Location')).to.equal('/slow/1');
    expect(repeat.body.result).to.deep.equal({ name: 'late', run: 1 });
    expect(state.idemRuns).to.equal(1);
  });

  it('an infrastructure fault (503) is not kept: the repeat runs the operation again', async () => {
    const post = () => server.call('/flaky', { method: 'POST', body: { name: 'flaky' }, headers: { 'Idempotency-Key': 'flaky-1' } });
    const first = await post();
    expect(first.status, first.text).to.equal(503);
    const second = await post();
    expect(second.status, second.text).to.equal(200);
    expect(second.body.result).to.deep.equal({ name: 'flaky', run: 2 });
    const third = await post();
    expect(answerOf(third)).to.deep.equal(answerOf(second));
    expect(state.idemFlakyRuns).to.equal(2);
  });

  it('an answer whose outcome is unknown (the store failed during COMMIT) is never run again: repeats answer 409 Request_IdempotencyOutcomeUnknown', async () => {
    const post = () => server.call('/in-doubt', { method: 'POST', body: { name: 'doubt' }, headers: { 'Idempotency-Key': 'doubt-1' } });
    const first = await post();
    expect([first.status, ...first.body.messages.map((m) => m.code)]).to.deep.equal([503, 'Storage_OutcomeUnknown']);
    for (let i = 0; i < 2; i++) {
      const repeat = await post();
      expect([repeat.status, ...repeat.body.messages.map((m) => m.code)], repeat.text).to.deep.equal([409, 'Request_IdempotencyOutcomeUnknown']);
    }
    expect(state.idemDoubtRuns).to.equal(1);
  });

  it('an answer over 64 KiB is replayed with its status and Location, its result replaced by a Warning', async () => {
    const post = () => server.call('/big', { method: 'POST', body: { name: 'big' }, headers: { 'Idempotency-Key': 'big-1' } });
    const first = await post();
    expect(first.status).to.equal(201);
    expect(first.body.result.filler).to.have.length(100_000);
    const repeat = await post();
    expect([repeat.status, repeat.headers.get('Location')]).to.deep.equal([201, first.headers.get('Location')]);
    expect(repeat.body.result).to.equal(undefined);
    expect(repeat.body.messages.map((m) => [m.code, m.severity])).to.deep.equal([['Request_ReplayWithoutResult', 'Warning']]);
    expect(state.idemBigRuns).to.equal(1);
  });

  it('a key whose request never records an answer (its process died) answers 409 Request_InProgress, then, once stale, Request_IdempotencyOutcomeUnknown; it never runs again', async function () {
    // Stale after ten request timeouts: 10 s here.
    this.timeout(40_000);
    const post = () => server.call('/stuck', { method: 'POST', body: { name: 'stuck' }, headers: { 'Idempotency-Key': 'stuck-1' } });
    const codeOf = (reply: Reply) => `${reply.status} ${reply.body.messages.map((m) => m.code).join()}`;
    expect(codeOf(await post())).to.equal('503 Request_OutcomeUnknown');
    const seen = new Set<string>();
    await until(async () => {
      const code = codeOf(await post());
      seen.add(code);
      return code === '409 Request_IdempotencyOutcomeUnknown';
    }, 'the stale key answered as unknown', 30_000);
    expect([...seen]).to.deep.equal(['409 Request_InProgress', '409 Request_IdempotencyOutcomeUnknown']);
    expect(state.idemStuckRuns).to.equal(1);
  });
});
