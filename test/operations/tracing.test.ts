import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'chai';
import { requireServices } from '../support/hooks.js';
import { callUrl, freePort } from '../support/http.js';
import { CLIENT_KIND, type OtlpReceiver, type ReceivedSpan, SERVER_KIND, startOtlpReceiver } from '../support/otlp-receiver.js';
import { type ServeProcess, killChildren, runCli, seededSqlite, sqliteServeEnv, startServe } from '../support/processes.js';
import { createTestDatabase, dropRedisKeys, redisPrefix, redisUrl } from '../support/test-stores.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { mint, newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * Tracing (contract part 8): a real `restlayer serve` with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP
 * receiver started here. An incoming W3C traceparent is continued, the server span is named after the route
 * template, the request's log line carries the trace id, and a graceful stop sends what is still buffered.
 */

type Line = Record<string, unknown>;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** A sampled W3C trace context from a caller that is not this server. */
const callerContext = () => {
  const traceId = hex(16);
  const parentSpanId = hex(8);
  return { traceId, parentSpanId, traceparent: `00-${traceId}-${parentSpanId}-01` };
};

const logLines = (server: ServeProcess): Line[] => server.stderr().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
const requestLine = (server: ServeProcess, requestId: string) => logLines(server).find((l) => l.msg === 'request' && l.requestId === requestId);

describeOneStore('operations: tracing (OpenTelemetry, OTLP over HTTP)', WHY_ONE_STORE.operations, function () {
  this.timeout(90_000);
  const key = newKey();
  // Minted when the suite starts, not when mocha loads the file: a token of 10 minutes made at load time has expired
  // by the time a long run reaches this suite.
  let token: string;
  let dir: string;
  let receiver: OtlpReceiver;

  before(async () => {
    token = mint({ key, issuer: 'restlayer', audience: 'restlayer' });
    dir = makeTempDir('restlayer-tracing-');
    receiver = await startOtlpReceiver();
  });
  afterEach(killChildren);
  after(async () => {
    await receiver?.close();
    removeTempDirs();
  });

  const serve = async (extra: Record<string, string | undefined>, args: string[] = []) =>
    startServe(['--port', '0', '--host', '127.0.0.1', ...args], { cwd: dir, env: sqliteServeEnv(await seededSqlite(join(dir, `${hex(4)}.db`)), key, extra) });
  const traced = (extra: Record<string, string | undefined> = {}, args: string[] = []) =>
    serve({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50', ...extra }, args);

  /** GET `path` as a caller in its own trace; answers the reply, the caller's context and the server span. */
  async function tracedCall(server: ServeProcess, path: string) {
    const caller = callerContext();
    const reply = await callUrl(`${server.url}${path}`, { token, headers: { traceparent: caller.traceparent } });
    const span = await receiver.waitForSpan((s) => s.traceId === caller.traceId && s.kind === SERVER_KIND);
    return { reply, caller, span };
  }

  it('continues the caller\'s trace: a server span under its parent, named after the route template', async () => {
    const server = await traced();
    const { reply, caller, span } = await tracedCall(server, '/sales-order/43659');
    expect(reply.status).to.equal(200);
    expect(span.parentSpanId).to.equal(caller.parentSpanId);
    expect(span.scope).to.equal('@opentelemetry/instrumentation-http');
    expect(span.attributes['http.route']).to.equal('/sales-order/:_salesOrderId');
    expect(span.name).to.equal('GET /sales-order/:_salesOrderId');
    expect(span.attributes['http.response.status_code']).to.equal(200);
    // The router's span (instrumentation-koa) is the server span's child.
    const routed = await receiver.waitForSpan((s) => s.traceId === caller.traceId && s.parentSpanId === span.spanId);
    expect(routed.scope).to.equal('@opentelemetry/instrumentation-koa');
  });

  it('puts the trace id and the server span id on the request\'s log line', async () => {
    const server = await traced();
    const { reply, caller, span } = await tracedCall(server, '/sales-order/43660');
    const requestId = reply.headers.get('X-Request-Id')!;
    await server.waitForStderr(new RegExp(`"requestId":"${requestId}"`));
    expect(requestLine(server, requestId)).to.include({ traceId: caller.traceId, spanId: span.spanId, status: 200, path: '/sales-order/43660' });
  });

  it('starts a trace of its own for a request without traceparent', async () => {
    const server = await traced();
    const reply = await callUrl(`${server.url}/health/live`, { headers: { 'X-Request-Id': 'untraced-caller' } });
    expect(reply.status).to.equal(200);
    await server.waitForStderr(/"requestId":"untraced-caller"/);
    const line = requestLine(server, 'untraced-caller')!;
    expect(line.traceId).to.match(/^[0-9a-f]{32}$/);
    const span = await receiver.waitForSpan((s) => s.traceId === line.traceId && s.kind === SERVER_KIND);
    expect(span.parentSpanId ?? '').to.equal('');
    expect(span.attributes['http.route']).to.equal('/health/live');
  });

  it('sends the spans still buffered when it stops gracefully (SIGTERM)', async () => {
    // A batch delay far longer than the test: only the shutdown flush can deliver the span.
    const server = await traced({ OTEL_BSP_SCHEDULE_DELAY: '600000' });
    const caller = callerContext();
    expect((await callUrl(`${server.url}/health/live`, { headers: { traceparent: caller.traceparent } })).status).to.equal(200);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).to.equal(0);
    const span = await receiver.waitForSpan((s) => s.traceId === caller.traceId && s.kind === SERVER_KIND, 1_000);
    expect(span.parentSpanId).to.equal(caller.parentSpanId);
  });

  /** Every span of `traceId` received once its server span is in (it ends after its children, which leave first). */
  async function spansOf(traceId: string) {
    await receiver.waitForSpan((s) => s.traceId === traceId && s.kind === SERVER_KIND);
    return receiver.spans.filter((s) => s.traceId === traceId);
  }

  it('records no query string, and the client address by the contract\'s rule rather than the leftmost X-Forwarded-For', async () => {
    const server = await traced();
    const caller = callerContext();
    const reply = await callUrl(`${server.url}/sales-order?status=5&take=2&getTotalCount=true`, {
      token, headers: { traceparent: caller.traceparent, 'X-Forwarded-For': '203.0.113.66' },
    });
    expect(reply.status).to.equal(200);
    const spans = await spansOf(caller.traceId);
    const span = spans.find((s) => s.kind === SERVER_KIND)!;
    // Server:TrustProxy is false: the socket's address, whatever the header says.
    expect(span.attributes['client.address']).to.equal('127.0.0.1');
    expect(span.attributes).to.not.have.property('url.query');
    for (const s of spans) expect(JSON.stringify(s), s.name).to.not.match(/getTotalCount|203\.0\.113\.66/);
  });

  it('with Server:TrustProxy, the client address is the entry Server:ProxyCount places from the right', async () => {
    const server = await traced({ Server__TrustProxy: 'true' });
    const caller = callerContext();
    const reply = await callUrl(`${server.url}/health/live`, { headers: { traceparent: caller.traceparent, 'X-Forwarded-For': '198.51.100.7, 203.0.113.9' } });
    expect(reply.status).to.equal(200);
    const span = await receiver.waitForSpan((s) => s.traceId === caller.traceId && s.kind === SERVER_KIND);
    expect(span.attributes['client.address']).to.equal('203.0.113.9');
  });

  it('does not trace the metrics listener: a scrape makes no span', async () => {
    const metricsPort = await freePort();
    const server = await traced({ Metrics__Port: String(metricsPort) });
    const scrape = callerContext();
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { traceparent: scrape.traceparent } });
    expect(scraped.status).to.equal(200);
    await scraped.text();
    // Spans leave in order: once a later request's span is in, a scrape's span would be too.
    const { span } = await tracedCall(server, '/health/live');
    expect(span.attributes['http.route']).to.equal('/health/live');
    expect(receiver.spans.filter((s) => s.traceId === scrape.traceId)).to.deep.equal([]);
  });

  it('with --workers 2, a worker traces the requests it serves', async () => {
    const server = await traced({}, ['--workers', '2']);
    await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'two workers serving');
    const { reply, caller, span } = await tracedCall(server, '/sales-order/43661');
    expect(reply.status).to.equal(200);
    expect(span.parentSpanId).to.equal(caller.parentSpanId);
    expect(span.pid).to.not.equal(server.child.pid);
    expect(requestLine(server, reply.headers.get('X-Request-Id')!)).to.include({ traceId: caller.traceId, spanId: span.spanId });
  });

  describe('off', () => {
    it('without OTEL_EXPORTER_OTLP_ENDPOINT: no trace ids in the log, the caller\'s traceparent is not taken up', async () => {
      const before = receiver.requests;
      const server = await serve({ OTEL_SERVICE_NAME: 'restlayer-off', OTEL_BSP_SCHEDULE_DELAY: '50' });
      const reply = await callUrl(`${server.url}/sales-order/43659`, { token, headers: { traceparent: callerContext().traceparent, 'X-Request-Id': 'not-traced' } });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('traceparent')).to.equal(null);
      await server.waitForStderr(/"requestId":"not-traced"/);
      server.child.kill('SIGTERM');
      await server.exited;
      for (const line of logLines(server)) expect(line, JSON.stringify(line)).to.not.have.any.keys('traceId', 'spanId');
      expect(receiver.requests).to.equal(before);
    });

    it('OTEL_SDK_DISABLED=true overrides the endpoint: nothing is sent', async () => {
      const before = receiver.requests;
      const server = await traced({ OTEL_SDK_DISABLED: 'true' });
      const caller = callerContext();
      expect((await callUrl(`${server.url}/health/live`, { headers: { traceparent: caller.traceparent, 'X-Request-Id': 'disabled' } })).status).to.equal(200);
      await server.waitForStderr(/"requestId":"disabled"/);
      server.child.kill('SIGTERM');
      await server.exited;
      expect(requestLine(server, 'disabled')).to.not.have.property('traceId');
      expect(receiver.requests).to.equal(before);
    });
  });

  describe('on PostgreSQL and Redis', () => {
    let database: { url: string; drop(): Promise<void> } | undefined;
    const prefix = redisPrefix();
    let server: ServeProcess;
    before(async function () {
      await requireServices(this, ['postgres', 'redis'], 'tracing on PostgreSQL and Redis');
      database = await createTestDatabase(true);
    });
    const scaledOut = () => ({ Storage__Provider: 'postgres', Storage__Postgres__Url: database!.url, Cache__Redis__Url: redisUrl, Cache__Redis__KeyPrefix: prefix });
    beforeEach(async () => {
      server = await traced(scaledOut());
    });
    after(async () => {
      await database?.drop();
      await dropRedisKeys(prefix);
    });

    /** A client span of the request's trace from `scope`, whose statement matches `statement`. */
    const clientSpan = (traceId: string, scope: string, statement: RegExp): Promise<ReceivedSpan> => receiver.waitForSpan((s) =>
      s.traceId === traceId && s.scope === scope && statement.test(String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? '')));

    it('traces the request\'s queries as pg client spans of its trace', async () => {
      const { reply, caller } = await tracedCall(server, '/sales-order/43659');
      expect(reply.status).to.equal(200);
      const query = await clientSpan(caller.traceId, '@opentelemetry/instrumentation-pg', /select/i);
      expect(query.kind).to.equal(CLIENT_KIND);
    });

    it('Redis spans carry neither the login name as typed nor the cookie session id', async () => {
      // What people type into the name field is sometimes their password.
      const typed = `typed-${hex(8)}`;
      const failed = callerContext();
      const refused = await callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: typed, password: 'x' }, headers: { traceparent: failed.traceparent } });
      expect(refused.status).to.equal(401);
      const loginSpans = await spansOf(failed.traceId);
      expect(loginSpans.filter((s) => s.scope === '@opentelemetry/instrumentation-ioredis')).to.not.deep.equal([]);
      for (const s of loginSpans) expect(JSON.stringify(s), s.name).to.not.include(typed);

      const env = sqliteServeEnv(join(dir, 'unused.db'), key, scaledOut());
      const add = await runCli(['user', 'add', 'tracy', '--role', 'Clerk', '--password-stdin'], { env, cwd: dir, input: 'tracy-password-1\n' });
      expect(add.code, add.stderr).to.equal(0);
      const login = callerContext();
      const loggedIn = await callUrl(`${server.url}/auth/cookie`, {
        method: 'POST', body: { userName: 'tracy', password: 'tracy-password-1' }, headers: { traceparent: login.traceparent },
      });
      expect(loggedIn.status).to.equal(200);
      const cookies = loggedIn.headers.getSetCookie().map((c) => c.split(';')[0]);
      const values = cookies.map((c) => c.slice(c.indexOf('=') + 1)).filter((v) => v.length >= 16);
      expect(values).to.not.deep.equal([]);
      const use = callerContext();
      expect((await callUrl(`${server.url}/auth/session`, { headers: { traceparent: use.traceparent, Cookie: cookies.join('; ') } })).status).to.equal(200);
      const sessionSpans = [...await spansOf(login.traceId), ...await spansOf(use.traceId)];
      expect(sessionSpans.filter((s) => s.scope === '@opentelemetry/instrumentation-ioredis')).to.not.deep.equal([]);
      for (const s of sessionSpans) for (const v of values) expect(JSON.stringify(s), s.name).to.not.include(v);
    });

    it('traces the Redis commands of a login (its throttling counters) as ioredis client spans', async () => {
      const caller = callerContext();
      const reply = await callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: `nobody-${hex(3)}`, password: 'not-the-password' }, headers: { traceparent: caller.traceparent } });
      expect(reply.status).to.equal(401);
      const command = await clientSpan(caller.traceId, '@opentelemetry/instrumentation-ioredis', /./);
      expect(command.kind).to.equal(CLIENT_KIND);
    });
  });
});
