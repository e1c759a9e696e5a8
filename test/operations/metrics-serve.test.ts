import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { type Server, createServer } from 'node:net';
import { join } from 'node:path';
import { expectCliFailure } from '../support/cli-env.js';
import { freePort } from '../support/http.js';
import { getOnNewConnection, sampleSum, scrape } from '../support/metrics.js';
import { killChildren, runCli, seededSqlite, type ServeProcess, sqliteServeEnv, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';

const local = ['--host', '127.0.0.1', '--port', '0'];

/** The TCP ports a process listens on (iproute2's `ss`). */
function listeningPorts(pid: number): number[] {
  return execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' }).split('\n')
    .filter((line) => line.includes(`pid=${pid},`))
    .map((line) => Number(/:(\d+)\s/.exec(line)![1]));
}

describe('Prometheus metrics of restlayer serve', function () {
  this.timeout(60_000);
  let dir: string;
  let db: string;

  before(async () => {
    dir = makeTempDir();
    db = await seededSqlite(join(dir, 'metrics.db'));
  });
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  describe('--workers 2', () => {
    let server: ServeProcess;
    let metricsUrl: string;

    before(async () => {
      const port = await freePort();
      metricsUrl = `http://127.0.0.1:${port}/metrics`;
      server = await startServe(['--workers', '2', ...local], { cwd: dir, env: sqliteServeEnv(db, newKey(), { Metrics__Port: String(port) }) });
      await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'two workers serving');
    });

    it('the primary serves the sum of every worker\'s numbers (no worker fails to bind the metrics port)', async () => {
      const health = { http_route: '/health/live', http_response_status_code: '200' };
      const before = sampleSum((await scrape(metricsUrl)).text, 'http_server_request_duration_seconds_count', health);
      // Connections alternate between the workers, so each counts about half of these.
      for (let i = 0; i < 10; i++) expect(await getOnNewConnection(`${server.url}/health/live`)).to.equal(200);
      const { status, text } = await scrape(metricsUrl);
      expect(status).to.equal(200);
      expect(sampleSum(text, 'http_server_request_duration_seconds_count', health) - before).to.equal(10);
      expect(text).to.include('# TYPE process_cpu_user_seconds_total counter');
      expect(server.stderr()).to.not.match(/"level":"error"|worker died/);
    });
  });

  it('Metrics:Port 0: the process listens on the API\'s port only', async () => {
    const env = sqliteServeEnv(db, newKey(), { NODE_ENV: 'development', Metrics__Port: '0' });
    const server = await startServe(local, { cwd: dir, env });
    try {
      expect(listeningPorts(server.child.pid!)).to.deep.equal([server.port]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  describe('a busy metrics port', () => {
    let taken: Server;
    let port: number;

    before(async () => {
      taken = createServer();
      port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)));
    });
    after(() => taken.close());

    for (const workers of [[], ['--workers', '2']]) {
      it(`stops ${workers.length ? 'the primary of --workers 2' : 'a single process'} with one line naming Metrics:Port`, async () => {
        const run = await runCli(['serve', ...local, ...workers], { cwd: dir, env: sqliteServeEnv(db, newKey(), { Metrics__Port: String(port) }) });
        expectCliFailure(run, 1, `Metrics:Port ${port} on 127.0.0.1 is in use`);
      });
    }
  });
});
