import type { Command } from 'commander';
import { signOperatorToken } from '../auth/operator-token.js';
import { tokenSettings } from '../auth/token-keys.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import { URL_OPTION_HELP, callServer, serverApiBase } from './server-api.js';
import { printJson, signingKeyOrFail } from './service-context.js';
import { line } from './terminal-text.js';

/**
 * Flushes through the running server's own API, so that every instance drops the table: the CLI signs an operator
 * token with the configured key (it reads the same configuration as the server) that allows the flush alone, at
 * that URL alone, for a few seconds.
 */
export function lookupCommand(program: Command) {
  program
    .command('lookup')
    .description('manage lookup tables of running servers')
    // Usage errors are one line, like every other error (contract part 8): no help text after them.
    .command('flush [types...]')
    .description('drop lookup tables from the cache of every running instance')
    .option('--all', 'every lookup table')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'machine-readable output: { "flushed": [...] }')
    .action(async (types: string[], opts: { all?: boolean; url?: string; json?: boolean }) => {
      if (!opts.all === !types.length) throw new CliError('give lookup table types, or --all', 2);
      const { config } = signingKeyOrFail(configOrFail());
      const base = await serverApiBase(config, opts.url);
      const token = signOperatorToken(tokenSettings(config), 'lookup-table.flush', base);
      for (const path of opts.all ? [''] : types.map((t) => '/' + encodeURIComponent(t))) {
        await callServer(base, 'DELETE', `/lookup-table${path}`, token);
        const what = opts.all ? 'all lookup tables' : decodeURIComponent(path.slice(1));
        if (!opts.json) process.stdout.write(line`flushed ${what}`);
      }
      if (opts.json) printJson({ flushed: opts.all ? 'all' : types });
    });
}
