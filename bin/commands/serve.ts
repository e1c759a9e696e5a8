import type { Command } from 'commander';
import { createLogger } from '../../lib/log.js';
import { startServer } from '../../lib/server.js';
import { configOrFail } from './config-context.js';
import { parsePort } from './options.js';

export function serveCommand(program: Command) {
  program
    .command('serve')
    .description('start the server (an empty database gets its schema and the sample data)')
    .option('--port <n>', 'port to listen on (also PORT; default 8080)', parsePort)
    .option('--host <h>', 'address to listen on (default 0.0.0.0)')
    .action(async (opts: { port?: number; host?: string }) => {
      const { config, warnings } = configOrFail();
      const log = createLogger(config.Log.Level);
      for (const w of warnings) log.warn(w);
      const server = await startServer({ config, log, port: opts.port, host: opts.host });
      log.info(`restlayer listening on ${server.url}`, { variant: config.Authentication.Variant, storage: config.Storage.Provider });
      process.stdout.write(`restlayer is serving ${server.url} (try ${server.url}/health/live)\n`);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info(`${signal}: finishing in-flight requests`);
        server.close().then(() => process.exit(0), (err: Error) => {
          log.error('shutdown failed', { error: err.message });
          process.exit(1);
        });
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
    });
}
