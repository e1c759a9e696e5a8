import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { untracedPorts } from '../telemetry/untraced-ports.js';

/** What `GET /metrics` answers: the exposition text of one registry, or of every worker's. */
export interface MetricsSource {
  contentType: string;
  text(): Promise<string>;
}

/** One server's own registry. */
export const registrySource = (registry: Registry): MetricsSource => ({
  contentType: registry.contentType,
  text: () => registry.metrics(),
});

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

/** The metrics port cannot be used; startup stops with a message naming the setting. */
export class MetricsPortError extends Error {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    const why = cause.code === 'EADDRINUSE' ? 'is in use (another instance on this machine?)' : `cannot be used (${cause.code ?? cause.message})`;
    super(`Metrics:Port ${port} on ${host} ${why}: set Metrics__Port to a free port, or to 0 to turn metrics off`, { cause });
    this.name = 'MetricsPortError';
  }
}

/**
 * A listener of its own for `GET /metrics`, apart from the API's port, so scrapes never meet the API's middleware
 * (authentication, limits) and the API never exposes its internals. Anything else answers 404.
 */
export async function listenForMetrics(host: string, port: number, source: MetricsSource): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    source.text().then(
      (text) => res.writeHead(200, { 'Content-Type': source.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: Error) => res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`Metrics are not available: ${err.message}\n`),
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (err) {
    throw new MetricsPortError(host, port, err as NodeJS.ErrnoException);
  }
  const address = server.address() as AddressInfo;
  untracedPorts.add(address.port);
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => {
      untracedPorts.delete(address.port);
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
