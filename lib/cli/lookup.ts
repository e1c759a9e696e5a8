import { signOperatorToken } from '../auth/operator-token.js';
import { tokenSettings } from '../auth/token-keys.js';
import { CliError } from './cli-error.js';
import { configOrFail, signingKeyOrFail } from './config-context.js';
import { callServer, serverApiBase } from './server-api.js';
import { printJson } from './print-json.js';
import { line } from './terminal-text.js';

/**
 * Flushes through the running server's own API, so that every instance drops the table: the CLI signs an operator
 * token with the configured key (it reads the same configuration as the server) that allows the flush of one table
 * (or of all), at that URL alone, once, for a few seconds (`restlayer lookup flush`, declared in commands.ts).
 */
export async function flushLookups(types: string[], opts: { all?: boolean; url?: string; json?: boolean }): Promise<void> {
  if (!opts.all === !types.length) throw new CliError('give lookup table types, or --all', 2);
  const { config } = signingKeyOrFail(configOrFail());
  const base = await serverApiBase(config, opts.url);
  const settings = tokenSettings(config);
  for (const type of opts.all ? [undefined] : types) {
    // One token per request, naming what it flushes: the server accepts each once, for that table alone.
    const token = signOperatorToken(settings, 'lookup-table.flush', base, type === undefined ? {} : { type });
    await callServer(base, 'DELETE', `/lookup-table${type === undefined ? '' : `/${encodeURIComponent(type)}`}`, token);
    if (!opts.json) process.stdout.write(line`flushed ${type ?? 'all lookup tables'}`);
  }
  if (opts.json) printJson({ flushed: opts.all ? 'all' : types });
}
