/**
 * OpenTelemetry tracing, on when OTEL_EXPORTER_OTLP_ENDPOINT is set. Off, this module loads nothing: the SDK, the
 * instrumentations and even @opentelemetry/api are imported only by `startTracing`, so an untraced server pays for
 * none of it. The instrumentations patch http, koa, pg and ioredis as they are imported, so `startTracing` must run
 * before anything imports them (bin/restlayer.ts imports the rest of the CLI after it; an application's own CLI
 * runs under `node --import restlayer/tracing`).
 */

import type { NodeTracerProvider, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { importOptional } from '../optional-package.js';
import { untracedPorts } from './untraced-ports.js';

export interface TraceIds {
  traceId: string;
  spanId: string;
}

let sdk: NodeTracerProvider | undefined;
let activeIds: (() => TraceIds | undefined) | undefined;
let setClientAddress: ((address: string) => void) | undefined;

/** The standard switches: an OTLP endpoint names where traces go; OTEL_SDK_DISABLED=true overrides it. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return !!endpoint?.trim() && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

/**
 * The ids of the span the caller runs in (a request's server span), or undefined when tracing is off; log lines
 * carry them so a log search leads to the trace.
 */
export function currentTraceIds(): TraceIds | undefined {
  return activeIds?.();
}

/**
 * Puts the caller's address as the server decided it (contract part 4: the socket's, or with Server:TrustProxy the
 * entry Server:ProxyCount places from the right of X-Forwarded-For) on the request's server span. The HTTP
 * instrumentation takes the leftmost X-Forwarded-For entry, which any client can write; until this runs the span
 * has the socket's address. A no-op when tracing is off.
 */
export function traceClientAddress(address: string): void {
  setClientAddress?.(address);
}

/**
 * What a Redis client span says of its command: the command's name and how many arguments it had, never the
 * arguments. Keys carry the login name as typed (people type passwords there) and cookie session ids, values carry
 * sessions; the request log keeps them out, and so must the traces.
 */
export function redisStatement(command: string, args: unknown[]): string {
  return args.length ? `${command} [${args.length} argument${args.length === 1 ? '' : 's'}]` : command;
}

/** Whether log lines should ask for trace ids (decided once, when the logger is made). */
export const tracingOn = (): boolean => activeIds !== undefined;

export async function startTracing(): Promise<boolean> {
  if (sdk || !tracingWanted()) return !!sdk;
  const { register } = await import('node:module');
  // OpenTelemetry is an optional peer dependency: a project that traces installs it (docs/monitoring.md, "Operations: tracing and logs").
  const optional = <T>(name: string) => importOptional<T>(name, 'Tracing (OTEL_EXPORTER_OTLP_ENDPOINT)');
  const { createAddHookMessageChannel } = await optional<typeof import('import-in-the-middle')>('import-in-the-middle');
  // The loader hook wraps only the modules the instrumentations ask for (sent over this channel), not every import.
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  // Traces only, from the SDK's parts: @opentelemetry/sdk-node also brings the metrics and logs SDKs, the Prometheus
  // and Zipkin exporters and the OTLP exporters (gRPC, protobuf, JSON) of all three signals with gRPC and protobufjs,
  // 108 packages of an install for what no restlayer server sends.
  const [{ NodeTracerProvider, BatchSpanProcessor }, resources, { HttpInstrumentation }, { KoaInstrumentation, KoaLayerType },
    { PgInstrumentation }, { IORedisInstrumentation }, api] = await Promise.all([
    optional<typeof import('@opentelemetry/sdk-trace-node')>('@opentelemetry/sdk-trace-node'),
    optional<typeof import('@opentelemetry/resources')>('@opentelemetry/resources'),
    optional<typeof import('@opentelemetry/instrumentation-http')>('@opentelemetry/instrumentation-http'),
    optional<typeof import('@opentelemetry/instrumentation-koa')>('@opentelemetry/instrumentation-koa'),
    optional<typeof import('@opentelemetry/instrumentation-pg')>('@opentelemetry/instrumentation-pg'),
    optional<typeof import('@opentelemetry/instrumentation-ioredis')>('@opentelemetry/instrumentation-ioredis'),
    optional<typeof import('@opentelemetry/api')>('@opentelemetry/api'),
  ]);
  const logLevel = process.env.OTEL_LOG_LEVEL?.trim().toUpperCase();
  if (logLevel && logLevel in api.DiagLogLevel) {
    api.diag.setLogger(new api.DiagConsoleLogger(), { logLevel: api.DiagLogLevel[logLevel as keyof typeof api.DiagLogLevel] });
  }
  // The resource as the SDK's own setup makes it: OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, the process (its
  // pid tells workers apart) and the host; the service is restlayer unless OTEL_SERVICE_NAME names it.
  const detected = resources.defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector, resources.processDetector, resources.hostDetector] }));
  // The provider reads OTEL_TRACES_SAMPLER(_ARG) and the span limits, the batch processor OTEL_BSP_*.
  sdk = new NodeTracerProvider({
    resource: process.env.OTEL_SERVICE_NAME ? detected : detected.merge(resources.resourceFromAttributes({ 'service.name': 'restlayer' })),
    spanProcessors: [new BatchSpanProcessor(await traceExporter(optional))],
  });
  // The global provider, AsyncLocalStorage as the context, and W3C traceparent and baggage as the propagators.
  sdk.register();
  // Each instrumentation patches its module as it is made, and makes its spans with the provider registered above.
  for (const instrumentation of [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => untracedPorts.has(req.socket.localPort ?? -1),
      // Merged over the instrumentation's own attributes, and an undefined value is not recorded: no query string
      // (the request log leaves it out too: filters name customers, cursors and the like), and the socket's
      // address rather than the leftmost X-Forwarded-For until the app sets the one it trusts.
      startIncomingSpanHook: (req) => ({ 'url.query': undefined, 'client.address': req.socket.remoteAddress }),
    }),
    // Router layers only: a span per plain middleware would cost more than it tells. The router layer also names
    // the server span and its http.route after the route template (@koa/router's _matchedRoute).
    new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
    // Queries and commands inside a traced request only; not the migrations, pings and pub/sub around them.
    new PgInstrumentation({ requireParentSpan: true }),
    new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
  ]) instrumentation.setTracerProvider(sdk);
  await waitForAllMessagesAcknowledged();
  activeIds = () => {
    const span = api.trace.getActiveSpan();
    if (!span) return undefined;
    const { traceId, spanId } = span.spanContext();
    return { traceId, spanId };
  };
  setClientAddress = (address) => api.trace.getActiveSpan()?.setAttribute('client.address', address);
  return true;
}

type Optional = <T>(name: string) => Promise<T>;

/**
 * OTLP/HTTP with JSON (@opentelemetry/exporter-trace-otlp-http), unless the standard protocol variables ask for
 * protobuf or gRPC: their exporters are packages of their own, installed by a project that wants them. Each exporter
 * reads the endpoint, headers and timeout from the OTEL_EXPORTER_OTLP_* variables.
 */
async function traceExporter(optional: Optional): Promise<SpanExporter> {
  type ExporterPackage = { OTLPTraceExporter: new () => SpanExporter };
  const protocol = (process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim() || 'http/json';
  const name = ({
    'http/json': '@opentelemetry/exporter-trace-otlp-http',
    'http/protobuf': '@opentelemetry/exporter-trace-otlp-proto',
    grpc: '@opentelemetry/exporter-trace-otlp-grpc',
  } as Record<string, string>)[protocol];
  if (!name) throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL ${protocol} is not one of http/json, http/protobuf, grpc`);
  const { OTLPTraceExporter } = await optional<ExporterPackage>(name);
  return new OTLPTraceExporter();
}

/** Ends tracing and sends the spans still buffered; a server calls it once its last request has finished. */
export async function stopTracing(): Promise<void> {
  const stopping = sdk;
  sdk = undefined;
  activeIds = undefined;
  setClientAddress = undefined;
  await stopping?.shutdown();
}
