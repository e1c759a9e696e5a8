import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

type RequestLabel = 'http_request_method' | 'http_route' | 'http_response_status_code';

/** The metrics of one server (contract part 8, "Operations"), in a registry of its own. */
export interface Metrics {
  registry: Registry;
  requestDuration: Histogram<RequestLabel>;
  logins: Counter<'outcome'>;
  lookupLoads: Counter<'type'>;
}

/** OpenTelemetry's recommended boundaries for `http.server.request.duration`, in seconds. */
const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/**
 * A registry per server rather than prom-client's global one: a test process runs many servers, each counting its own.
 * Node's process metrics only when they are served: collecting them starts an event-loop monitor that never stops.
 */
export function createMetrics(options: { processMetrics: boolean }): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    requestDuration: new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Duration of HTTP requests to the API, until the response is ready to send.',
      labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
      buckets: durationBuckets,
      registers: [registry],
    }),
    logins: new Counter({
      name: 'restlayer_logins_total',
      help: 'Logins by outcome: success, invalid_credentials, throttled; unavailable: a store failed before the check finished (503, nothing counted against the account or address).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    lookupLoads: new Counter({
      name: 'restlayer_lookup_cache_loads_total',
      help: 'Lookup tables loaded from the store into the cache (first use, or after a flush), by table.',
      labelNames: ['type'],
      registers: [registry],
    }),
  };
}

/**
 * `restlayer_db_statements_total`: the statements the store has run (lib/storage/statement-count.ts), read when
 * scraped, so counting costs a request nothing more than the increment. Divided by the request rate, the statements a
 * request costs: a route that starts sending more shows here before it shows in the latency.
 */
export function countStatements(metrics: Metrics, statements: { readonly value: number }): void {
  let reported = 0;
  new Counter({
    name: 'restlayer_db_statements_total',
    help: 'SQL statements run by the store: reads, writes, and each transaction\'s BEGIN and COMMIT or ROLLBACK.',
    registers: [metrics.registry],
    collect() {
      const now = statements.value;
      this.inc(now - reported);
      reported = now;
    },
  });
}
