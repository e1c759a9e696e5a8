import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skipOrFail } from '../support/hooks.js';
import { freePort } from '../support/http.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { until } from '../support/wait.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const PROMETHEUS = '/usr/bin/prometheus';

interface QueryAnswer {
  status: string;
  data: { result: { value: [number, string] }[] };
}

/**
 * A real Prometheus (Debian's package; its system service, if any, is left alone) scraping a server every second:
 * what it reads back through its query API is what an operator's dashboards would see.
 */
describeOneStore('Prometheus scrapes the metrics port', WHY_ONE_STORE.operations, function () {
  this.timeout(60_000);
  let server: TestServer;
  let prometheus: ChildProcess;
  let queryUrl: string;
  let output = '';

  before(async function () {
    if (!existsSync(PROMETHEUS)) skipOrFail(this, 'the Prometheus scrape test', `${PROMETHEUS} is missing (apt-get install prometheus)`);
    server = await startTestServer({ config: { Metrics: { Port: await freePort() } } });
    const dir = makeTempDir('restlayer-prometheus-');
    const config = join(dir, 'prometheus.yml');
    writeFileSync(config, [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: restlayer',
      '    static_configs:',
      `      - targets: ['${new URL(server.metricsUrl!).host}']`,
      '',
    ].join('\n'));
    const listen = `127.0.0.1:${await freePort()}`;
    queryUrl = `http://${listen}/api/v1/query`;
    prometheus = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=${listen}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    prometheus.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    prometheus.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until(async () => (await fetch(`http://${listen}/-/ready`).catch(() => undefined))?.status === 200, 'Prometheus ready', 30_000, 200)
      .catch((err: Error) => {
        throw new Error(`${err.message}; its output:\n${output}`);
      });
  });
  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const gone = new Promise((resolve) => prometheus.once('close', resolve));
      prometheus.kill('SIGTERM');
      await gone;
    }
    await server?.stop();
    removeTempDirs();
  });

  const query = async (promql: string): Promise<string | undefined> => {
    const answer = (await (await fetch(`${queryUrl}?query=${encodeURIComponent(promql)}`)).json()) as QueryAnswer;
    expect(answer.status).to.equal('success');
    return answer.data.result[0]?.value[1];
  };

  it('reads back http_server_request_duration_seconds_count: the requests the test made', async () => {
    for (let i = 0; i < 7; i++) expect((await server.call('/health/live', { token: null })).status).to.equal(200);
    const count = 'sum(http_server_request_duration_seconds_count{job="restlayer",http_route="/health/live",http_request_method="GET"})';
    let last: string | undefined;
    await until(async () => (last = await query(count)) === '7', 'Prometheus to have scraped 7 requests', 30_000, 250)
      .catch((err: Error) => {
        throw new Error(`${err.message} (last answer: ${last}); Prometheus output:\n${output}`);
      });
    expect(await query('up{job="restlayer"}')).to.equal('1');
  });
});
