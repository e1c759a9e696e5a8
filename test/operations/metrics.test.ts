import { expect } from 'chai';
import { loadConfig } from 'restlayer';
import { freePort } from '../support/http.js';
import { sampleSum, scrape } from '../support/metrics.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const REQUESTS = 'http_server_request_duration_seconds_count';

describeOneStore('Prometheus metrics (contract part 8, Operations)', WHY_ONE_STORE.operations, function () {
  this.timeout(60_000);
  let server: TestServer;
  let metricsUrl: string;

  before(async () => {
    server = await startTestServer({
      config: { ...FAST_HASH, Metrics: { Port: await freePort() }, Authentication: { PasswordHashCost: 10, Throttle: { AccountFailures: 2 } } },
    });
    metricsUrl = server.metricsUrl!;
    await addUser(server, 'mia', 'mia-password-1');
  });
  after(() => server.stop());

  it('serves GET /metrics on a port of its own, in the text exposition format, with Node\'s process metrics', async () => {
    expect(metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).to.not.equal(String(server.port));
    const { status, contentType, text } = await scrape(metricsUrl);
    expect(status).to.equal(200);
    expect(contentType).to.match(/^text\/plain; version=0\.0\.4/);
    for (const name of ['http_server_request_duration_seconds', 'restlayer_logins_total', 'restlayer_lookup_cache_loads_total', 'process_cpu_user_seconds_total', 'nodejs_heap_size_used_bytes']) {
      expect(text).to.include(`# TYPE ${name} `);
    }
    expect((await scrape(metricsUrl.replace('/metrics', '/other'))).status).to.equal(404);
  });

  it('is not on the API\'s port: /metrics there is an unknown route (404 envelope)', async () => {
    const reply = await server.call('/metrics', { token: null });
    expect(reply.status).to.equal(404);
    expect(reply.body.messages[0].code).to.equal('Route_NotFound');
  });

  it('labels requests with the route template, never the raw path; unknown paths as `unmatched`', async () => {
    for (const id of [43659, 43660, 43661]) expect((await server.call(`/sales-order/${id}`)).status).to.equal(200);
    expect((await server.call('/sales-order/999999999')).status).to.equal(404);
    await server.call('/no-such-thing/12345', { token: null });
    const { text } = await scrape(metricsUrl);
    const route = { http_request_method: 'GET', http_route: '/sales-order/{_salesOrderId}' };
    expect(sampleSum(text, REQUESTS, { ...route, http_response_status_code: '200' })).to.equal(3);
    expect(sampleSum(text, REQUESTS, { ...route, http_response_status_code: '404' })).to.equal(1);
    expect(sampleSum(text, REQUESTS, { http_route: 'unmatched', http_response_status_code: '404' })).to.be.at.least(1);
    const routes = [...text.matchAll(/http_route="([^"]*)"/g)].map((m) => m[1]);
    expect(routes).to.include('/sales-order/{_salesOrderId}');
    expect(routes.filter((r) => /\d|no-such-thing/.test(r))).to.deep.equal([]);
  });

  it('counts logins by outcome: success, invalid_credentials, throttled', async () => {
    const login = (password: string) => server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: 'mia', password } });
    expect((await login('mia-password-1')).status).to.equal(200);
    expect((await login('wrong-1')).status).to.equal(401);
    expect((await login('wrong-2')).status).to.equal(401);
    expect((await login('mia-password-1')).status).to.equal(429);
    const { text } = await scrape(metricsUrl);
    expect(sampleSum(text, 'restlayer_logins_total', { outcome: 'success' })).to.equal(1);
    expect(sampleSum(text, 'restlayer_logins_total', { outcome: 'invalid_credentials' })).to.equal(2);
    expect(sampleSum(text, 'restlayer_logins_total', { outcome: 'throttled' })).to.equal(1);
  });

  it('counts lookup table loads: once per load, again after a flush', async () => {
    const loads = async () => sampleSum((await scrape(metricsUrl)).text, 'restlayer_lookup_cache_loads_total', { type: 'sales-territory' });
    const before = await loads();
    for (let i = 0; i < 3; i++) expect((await server.call('/lookup-table/sales-territory')).status).to.equal(200);
    expect(await loads()).to.equal(before + 1);
    const admin = server.token({ role: ['Administrator'] });
    expect((await server.call('/lookup-table/sales-territory', { method: 'DELETE', token: admin })).status).to.equal(200);
    expect((await server.call('/lookup-table/sales-territory')).status).to.equal(200);
    expect(await loads()).to.equal(before + 2);
  });

  it('a busy metrics port stops startup with a message naming Metrics:Port', async () => {
    const port = Number(new URL(metricsUrl).port);
    let failure: Error | undefined;
    await startTestServer({ config: { Metrics: { Port: port } } }).then((s) => s.stop(), (err: Error) => (failure = err));
    expect(failure?.message).to.match(/^Metrics:Port \d+ on 127\.0\.0\.1 is in use .*set Metrics__Port to a free port, or to 0/);
  });
});

describeOneStore('Prometheus metrics under a prefix', WHY_ONE_STORE.operations, () => {
  it('names routes below RestAPI:Path, as the OpenAPI document does', async () => {
    const server = await startTestServer({ config: { RestAPI: { Path: '/api' }, Metrics: { Port: await freePort() } } });
    try {
      expect((await server.call('/sales-order/43659')).status).to.equal(200);
      const { text } = await scrape(server.metricsUrl!);
      expect(sampleSum(text, REQUESTS, { http_route: '/sales-order/{_salesOrderId}', http_response_status_code: '200' })).to.equal(1);
    } finally {
      await server.stop();
    }
  });
});

describeOneStore('Prometheus metrics: variant B logins', WHY_ONE_STORE.operations, () => {
  it('counts /authentication logins too', async () => {
    const server = await startTestServer({
      config: { Metrics: { Port: await freePort() }, Authentication: { Variant: 'B', PasswordHashCost: 10 } },
      env: { AuthConfig__SigningKey: 'variant-b-secret-that-is-long-enough-0123456789' },
    });
    try {
      await addUser(server, 'bo', 'bo-password-1');
      const login = (password: string) => server.call('/authentication', { method: 'POST', token: null, body: { userName: 'bo', password } });
      expect((await login('bo-password-1')).status).to.equal(200);
      expect((await login('nope-nope')).status).to.equal(401);
      const { text } = await scrape(server.metricsUrl!);
      expect(sampleSum(text, 'restlayer_logins_total', { outcome: 'success' })).to.equal(1);
      expect(sampleSum(text, 'restlayer_logins_total', { outcome: 'invalid_credentials' })).to.equal(1);
    } finally {
      await server.stop();
    }
  });
});

describeOneStore('Prometheus metrics: Metrics:Port 0', WHY_ONE_STORE.operations, () => {
  it('turns metrics off: no listener, no request timing', async () => {
    const server = await startTestServer({ config: { Metrics: { Port: 0 } } });
    try {
      expect(server.metricsUrl).to.equal(undefined);
      expect((await server.call('/health/live', { token: null })).status).to.equal(200);
      expect(sampleSum(await server.infrastructure.metrics.registry.metrics(), REQUESTS)).to.equal(0);
    } finally {
      await server.stop();
    }
  });

  it('is the test environment\'s default (config/test.json); elsewhere the default is 9464 on 127.0.0.1', () => {
    expect(loadConfig({ env: { NODE_ENV: 'test' } }).config.Metrics.Port).to.equal(0);
    const { Metrics } = loadConfig({ env: { NODE_ENV: 'development' } }).config;
    expect(Metrics).to.deep.equal({ Port: 9464, Host: '127.0.0.1' });
    expect(loadConfig({ env: { NODE_ENV: 'development', Metrics__Port: '0' } }).config.Metrics.Port).to.equal(0);
  });
});
