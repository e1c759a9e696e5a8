import { signOperatorToken } from '../auth/operator-token.js';
import { tokenSettings } from '../auth/token-keys.js';
import { CliError } from './cli-error.js';
import { configOrFail, signingKeyOrFail } from './config-context.js';
import { callServer, serverApiBase } from './server-api.js';
import { printJson } from './print-json.js';
import { line } from './terminal-text.js';

/**
 * Flushes through the running server's own API, so that every instance drops the table: the CLI signs an operator
 * token with the configured key (it reads the same configuration as the server) that allows the flush alone, at
 * that URL alone, for a few seconds (`restlayer lookup flush`, declared in commands.ts).
 */
export async function flushLookups(types: string[], opts: { all?: boolean; url?: string; json?: boolean }): Promise<void> {
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
}
