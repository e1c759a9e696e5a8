import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from './config/schema.js';
import { type App, createApp } from './app.js';
import { answerClientError } from './http/client-errors.js';
import type { Logger } from './log.js';
import { listenForMetrics, registrySource } from './metrics/listener.js';
import { countStatements, createMetrics } from './metrics/metrics.js';
import { type ServiceModule, moduleUniqueKeys } from './modules.js';
import { applicationRoutes } from './routing/application-routes.js';
import { grantsMatchingNothing } from './routing/load-routes.js';
import { type LayerInfrastructure, allModules, createServices } from './create-services.js';
import type { LayerServices } from './routing/layer-services.js';
import { openSharedState } from './shared/shared-state.js';
import { openStorage } from './storage/open-storage.js';
import { startAuditRetention } from './audit/retention.js';

/** What the application brings to the layer: its service modules and the folder of its route files. */
export interface Application {
  modules: readonly ServiceModule[];
  /** Route files, one per URL path (see lib/routing/load-routes.ts), served beside the layer's own (lib/layer-routes/). */
  routesDir: string;
}

export interface RunningServer {
  /** Base URL including the API prefix, e.g. http://127.0.0.1:8080/api */
  url: string;
  port: number;
  app: App;
  /** What routes reach as `call.services`. */
  services: LayerServices;
  /** What the server runs on: the store, shared state, metrics, throttle, cookie sessions, the access check. */
  infrastructure: LayerInfrastructure;
  server: Server;
  /** Where this process serves its Prometheus metrics, when it does (Metrics:Port not 0, not a worker). */
  metricsUrl?: string;
  /** Graceful: stop accepting, let in-flight requests finish (up to Server:ShutdownTimeoutSeconds), close the store. */
  close(): Promise<void>;
}

export interface StartOptions {
  application: Application;
  config: AppConfig;
  log: Logger;
  port?: number;
  host?: string;
  /** Migrate and seed the store before serving (default); workers leave it to their primary. */
  prepareStorage?: boolean;
  /** Serve GET /metrics on Metrics:Port (default); workers leave it to their primary, which asks them for their numbers. */
  serveMetrics?: boolean;
}

/**
 * The API's port cannot be used: the error names what to set, as the metrics port's does (a second `npm start`, or
 * another program on the port, is the usual cause).
 */
function listenError(cause: NodeJS.ErrnoException, port: number, host: string, fromOption: boolean): Error {
  const why = cause.code === 'EADDRINUSE' ? 'is in use (EADDRINUSE: another server on this machine?)'
    : cause.code === 'EACCES' ? 'needs privileges this process lacks (EACCES)'
      : cause.code === 'EADDRNOTAVAIL' ? 'is on an address this machine does not have (EADDRNOTAVAIL)' : undefined;
  if (!why) return cause;
  const what = cause.code === 'EADDRNOTAVAIL' ? 'set HOST (or Server__Host, --host) to an address of this machine'
    : `${fromOption ? 'give --port' : 'set PORT (or Server__Port, --port) to'} a free port${cause.code === 'EACCES' ? ' above 1023' : ''}`;
  return new Error(`port ${port} on ${host} ${why}: ${what}`, { cause });
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config, log, application } = options;
  // Route files are checked before anything is opened, so a broken one stops startup cheaply.
  const routes = await applicationRoutes(application, config.Authorization.Roles);
  for (const warning of grantsMatchingNothing(routes, config.Authorization.Roles)) log.warn(warning);
  const modules = allModules(application.modules);
  const metricsOn = config.Metrics.Port !== 0;
  const metrics = createMetrics({ processMetrics: metricsOn });
  // Bound before the store opens: a busy metrics port (a second instance) stops startup at once, naming the setting.
  const metricsListener = metricsOn && options.serveMetrics !== false
    ? await listenForMetrics(config.Metrics.Host, config.Metrics.Port, registrySource(metrics.registry))
    : undefined;
  const storage = await openStorage(config, modules, {
    log: (text) => log.info(text), warn: (text) => log.warn(text), prepare: options.prepareStorage, faultLog: log, serving: true,
  })
    .catch(async (err: unknown) => {
      await metricsListener?.close();
      throw err;
    });
  const shared = openSharedState(config, (text) => log.warn(text));
  // Give Redis its first connection before serving; if it is down, serve anyway and report not ready until it answers.
  await shared.ping().catch((err: Error) => log.warn(`shared state not reachable at startup: ${err.message}`));
  countStatements(metrics, storage.statements);
  const created = createServices(application.modules, storage, config, shared, metrics);
  const { services } = created;
  const infrastructure = { ...created.infrastructure, metrics };
  const app = createApp({ config, services, infrastructure, routes, log, uniqueKeys: modules.flatMap(moduleUniqueKeys) });

  let closing = false;
  // Not async: an async layer would add a promise (and, with the request scope's hook, a hook call) to every request.
  app.middleware.unshift((ctx, next) => {
    if (closing) ctx.set('Connection', 'close');
    return next();
  });
  // Without a Host header node would answer a bare 400 itself; the app answers such requests like any other.
  const server = createServer({ maxHeaderSize: config.RestAPI.MaxHeaderBytes, requireHostHeader: false }, app.callback());
  server.on('clientError', answerClientError);
  // Slow senders hold a connection at most this long (slowloris); operations have their own RequestTimeoutSeconds.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;

  const host = options.host ?? config.Server.Host;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? config.Server.Port, host, () => resolve());
    });
  } catch (err) {
    await shared.close();
    await storage.close();
    await metricsListener?.close();
    throw listenError(err as NodeJS.ErrnoException, options.port ?? config.Server.Port, host, options.port !== undefined);
  }
  const { port } = server.address() as AddressInfo;
  // Audit:RetentionDays: old audit entries go at startup and then daily (nothing while it is 0, the default).
  const retention = startAuditRetention(storage, config.Audit.RetentionDays, log);
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;

  let closed: Promise<void> | undefined;
  const close = () => (closed ??= (async () => {
    closing = true;
    // Stop listening, but leave the open connections be. http.Server#close() would also close every kept-alive
    // connection idle at this instant (node 19 and later), and so did a sweep here every 50 ms: a client sending its
    // next request on one right then got a reset instead of an answer (5 to 13 of them per SIGTERM under load). Now a
    // connection closes after its next answer, which says `Connection: close` (the middleware above), or, if its client
    // sends nothing more, when it has been idle for the keep-alive timeout the server announces (`Keep-Alive:
    // timeout=5`): the one moment a client does not expect to reuse it.
    const closeIdle = server.closeIdleConnections;
    server.closeIdleConnections = () => {};
    const done = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections = closeIdle;
    const deadline = new Promise<'timeout'>((resolve) => setTimeout(resolve, config.Server.ShutdownTimeoutSeconds * 1000, 'timeout').unref());
    if ((await Promise.race([done, deadline])) === 'timeout') {
      log.warn('shutdown timeout: closing remaining connections');
      server.closeAllConnections();
      await done;
    }
    await retention.stop();
    await shared.close();
    await storage.close();
    await metricsListener?.close();
  })());

  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}${config.RestAPI.Path}`;
  return { url, port, app, services, infrastructure, server, metricsUrl: metricsListener?.url, close };
}
