/**
 * `node --import restlayer/tracing dist/main.js serve`: starts tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set)
 * before an application's CLI imports the server, so http, koa, pg and ioredis are instrumented as they load.
 */
import { startTracing } from './tracing.js';

await startTracing().catch((err: Error) => {
  // A missing OpenTelemetry package is a line for a person, not a stack.
  process.stderr.write(`restlayer/tracing: ${err.message}\n`);
  process.exit(1);
});
