import type { Logger } from '../log.js';

/**
 * A defect nothing caught ends the process, as node would, but as a JSON log line with its stack, after the
 * lines before it (pino writes out its buffer on process.exit), instead of a bare stack among the JSON lines.
 */
export function exitOnCrash(log: Logger): void {
  process.on('uncaughtException', (err) => {
    log.error('crashed: uncaught exception', { pid: process.pid, error: err.stack ?? String(err) });
    process.exit(1);
  });
}
