import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import { currentTraceIds, tracingOn } from './telemetry/tracing.js';
import { hasPackage } from './optional-package.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown>;
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/**
 * Where lines go: `stderr` (JSON lines, written asynchronously), `pretty` (pino-pretty's coloured lines on stderr,
 * for a person at a terminal), or a function that gets each JSON line (tests keep them).
 */
export type LogOutput = 'stderr' | 'pretty' | ((line: string) => void);

/**
 * Secrets, by field name: top-level fields, and the two headers a caller's credentials travel in. Paths are exact
 * on purpose: pino's wildcard paths (`*.password`) cost tens of microseconds a line, more than the line itself.
 */
const redactPaths = ['password', 'token', 'accessToken', 'refreshToken', 'authorization', 'cookie', '["set-cookie"]', '["x-api-key"]',
  'headers.authorization', 'headers.cookie'];

function destination(output: LogOutput): DestinationStream {
  // A worker thread writes the lines (pino's transport), so a slow reader never blocks a request, and at exit
  // pino waits until the worker has written every line, in order (an async stream in this thread cannot promise that).
  if (output === 'stderr') return pino.transport({ target: 'pino/file', options: { destination: 2 } });
  // Readable lines at a terminal need pino-pretty, an optional peer dependency; without it the terminal gets JSON lines.
  if (output === 'pretty' && hasPackage('pino-pretty')) return pino.transport({ target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss.l' } });
  if (output === 'pretty') return pino.transport({ target: 'pino/file', options: { destination: 2 } });
  return { write: (line: string) => output(line.trimEnd()) };
}

/**
 * One JSON object per line (pino), so log shippers need no parser of their own: `time` (ISO), `level` (its name),
 * `msg`, then the fields; with tracing on, `traceId` and `spanId` of the request being served. Secrets named in
 * fields are redacted. When the process exits (process.exit, a crash), pino writes out what is still buffered.
 */
export function createLogger(level: LogLevel, output: LogOutput = 'stderr'): Logger {
  const stream = destination(output);
  const options: LoggerOptions = {
    level,
    base: null,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: redactPaths, censor: '[redacted]' },
  };
  if (tracingOn()) options.mixin = () => currentTraceIds() ?? {};
  const logger = pino(options, stream);
  const at = (lvl: LogLevel) => (msg: string, fields: LogFields = {}) => logger[lvl](fields, msg);
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
