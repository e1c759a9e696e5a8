import cluster from 'node:cluster';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import { applyWebDefaults, webAppProblem } from '../http/web-app.js';
import { createLogger } from '../log.js';
import { relayClusterFlushes } from '../shared/cluster-bus.js';
import { openStorage } from '../storage/open-storage.js';
import { storageFaultCode } from '../storage/sqlite-faults.js';
import { sqliteReplacementHold } from '../storage/sqlite-files.js';
import { stopTracing } from '../telemetry/tracing.js';
import { reportListening, runWorkerPool } from '../workers.js';
import { allModules } from '../create-services.js';
import { cliApplication } from './application-context.js';
import { CliError } from './cli-error.js';
import { exitOnCrash } from './exit-on-crash.js';
import { configOrFail } from './config-context.js';
import { DEV_LOOP_VARIABLE, staleBuildWarning } from './stale-build.js';

export interface ServeOptions {
  port?: number;
  host?: string;
  workers?: number;
  web?: boolean;
}

/**
 * The line tests and people read: the API base first (`/restlayer is serving (http:\/\/\S+)/` captures it), then,
 * when the browser app is served, where it is: `...; app at http://127.0.0.1:8080/`.
 */
const announcer = (web: boolean) => (url: string) =>
  process.stdout.write(`restlayer is serving ${url} (try ${url}/health/live)${web ? `; app at ${new URL(url).origin}/` : ''}\n`);

/** `restlayer serve`: the server of the application, in this process or as a primary with --workers N. */
export async function serve(opts: ServeOptions): Promise<void> {
  const application = await cliApplication();
  const { config, warnings, generatedEnv } = configOrFail();
  if (opts.web) config.Web.Enabled = true;
  applyWebDefaults(config);
  const problem = config.Web.Enabled ? webAppProblem() : undefined;
  if (problem) throw new CliError(problem);
  const announce = announcer(config.Web.Enabled);
  // A person at a terminal gets pino-pretty's lines; anything else (a pipe, a file, a log shipper) JSON lines.
  const log = createLogger(config.Log.Level, process.stderr.isTTY && config.env !== 'production' ? 'pretty' : 'stderr');
  exitOnCrash(log);
  const workers = opts.workers ?? 1;
  if (!cluster.isWorker && config.env !== 'production' && !process.env[DEV_LOOP_VARIABLE]) {
    // Served from a build in the project's folder (npm start): the build may be older than the code being edited.
    const stale = staleBuildWarning(process.cwd());
    if (stale) log.warn(stale);
  }

  if (workers > 1 && cluster.isPrimary) {
    for (const w of warnings) log.warn(w);
    // Only the primary listens on Metrics:Port; it asks every worker for its numbers on each scrape.
    const { clusterSource } = await import('../metrics/cluster.js');
    const { listenForMetrics } = await import('../metrics/listener.js');
    const metrics = config.Metrics.Port ? await listenForMetrics(config.Metrics.Host, config.Metrics.Port, clusterSource()) : undefined;
    // The primary prepares the store once, so workers never race to migrate or seed it.
    await (await openStorage(config, allModules(application.modules), { log: (text) => log.info(text), serving: true })).close();
    if (!config.Cache.Redis.Url) {
      // Without Redis, workers share login throttling and lookup flushes through the primary.
      new RateLimiterClusterMaster();
      relayClusterFlushes();
    }
    process.exitCode = await runWorkerPool({
      count: workers, log, env: generatedEnv, onListening: announce,
      restartMs: config.Server.WorkerRestartMilliseconds, restartMaxMs: config.Server.WorkerRestartMaxMilliseconds,
      ...(config.Storage.Provider === 'sqlite' && { replacementHold: sqliteReplacementHold(config.Storage.Sqlite.Path) }),
    });
    await metrics?.close();
    log.info('restlayer stopped', { pid: process.pid, exitCode: process.exitCode });
    // Every worker is gone: whatever else holds the loop open (a scrape still asking them) must not delay the exit.
    process.exit(process.exitCode ?? 0);
  }

  if (!cluster.isWorker) for (const w of warnings) log.warn(w);
  // A worker's metrics are served by its primary, which asks for them on every scrape.
  const reportsToPrimary = cluster.isWorker && config.Metrics.Port !== 0;
  // Loaded here, not at the top: the HTTP stack and metrics are most of what a CLI process would load for nothing.
  const { answerPrimary } = await import('../metrics/cluster.js');
  if (reportsToPrimary) answerPrimary();
  const { startServer } = await import('../server.js');
  const server = await startServer({
    application, config, log, port: opts.port, host: opts.host, prepareStorage: !cluster.isWorker, serveMetrics: !cluster.isWorker,
  }).catch((err: Error) => {
    // The primary sees only an exit code: the worker's own log says why it could not start (the database, mostly).
    if (cluster.isWorker) {
      const code = storageFaultCode(err);
      log.error('worker cannot start', {
        pid: process.pid, error: err.message, code,
        ...(code && { check: `the database at Storage:Sqlite:Path (${config.Storage.Sqlite.Path}), the -wal and -shm files next to it and its disk` }),
      });
    }
    throw err;
  });
  if (reportsToPrimary) answerPrimary(server.infrastructure.metrics.registry);
  // Tenancy is said where it is on: an operator sees at start whether callers are kept to their tenants.
  log.info(`restlayer listening on ${server.url}`, {
    variant: config.Authentication.Variant, storage: config.Storage.Provider, pid: process.pid, ...(config.Tenancy.Enabled ? { tenancy: true } : {}),
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: finishing in-flight requests`, { pid: process.pid });
    // The last spans are sent before the process goes (pino writes out the last log lines on exit).
    const exit = (code: number) => stopTracing().catch(() => {}).finally(() => process.exit(code));
    // The last line says the process ended on purpose, for whoever reads the log after it is gone.
    server.close().then(() => {
      log.info('restlayer stopped', { pid: process.pid });
      return exit(0);
    }, (err: Error) => {
      log.error('shutdown failed', { error: err.message });
      return exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Announced once a signal is handled: whoever reads the line may stop the server at once, gracefully.
  if (cluster.isWorker) reportListening(server.url);
  else announce(server.url);
}
