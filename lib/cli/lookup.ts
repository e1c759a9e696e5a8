import type { Command } from 'commander';
import { signAccessToken } from '../auth/tokens.js';
import { tokenSettings } from '../auth/token-keys.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import { signingKeyOrFail } from './service-context.js';

interface EnvelopeReply {
  messages?: { message: string; severity: string }[];
}

/**
 * Flushes through the running server's own API, so that every instance drops the table: the CLI signs a
 * one-minute Administrator token with the configured key (it reads the same configuration as the server).
 */
export function lookupCommand(program: Command) {
  program
    .command('lookup')
    .description('manage lookup tables of running servers')
    // Usage errors are one line, like every other error (contract part 8): no help text after them.
    .command('flush [types...]')
    .description('drop lookup tables from the cache of every running instance')
    .option('--all', 'every lookup table')
    .option('--url <url>', 'the API base URL of a running server (default http://127.0.0.1:<Server:Port><RestAPI:Path>)')
    .action(async (types: string[], opts: { all?: boolean; url?: string }) => {
      if (!opts.all === !types.length) throw new CliError('give lookup table types, or --all', 2);
      const { config } = signingKeyOrFail(configOrFail());
      const base = (opts.url ?? `http://127.0.0.1:${config.Server.Port}${config.RestAPI.Path}`).replace(/\/$/, '');
      const token = signAccessToken(tokenSettings(config), { sub: 'restlayer-cli', name: 'restlayer CLI', role: ['Administrator'] }, 60);
      for (const path of opts.all ? [''] : types.map((t) => '/' + encodeURIComponent(t))) {
        let response: Response;
        try {
          response = await fetch(`${base}/lookup-table${path}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
        } catch (err) {
          throw new CliError(`cannot reach the server at ${base}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
        }
        const reply = (await response.json().catch(() => ({}))) as EnvelopeReply;
        if (!response.ok) throw new CliError(reply.messages?.map((m) => m.message).join(' ') || `the server answered ${response.status}`);
        process.stdout.write(`flushed ${opts.all ? 'all lookup tables' : decodeURIComponent(path.slice(1))}\n`);
      }
    });
}
