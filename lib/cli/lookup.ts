import type { Command } from 'commander';
import { signAccessToken } from '../auth/tokens.js';
import { tokenSettings } from '../auth/token-keys.js';
import type { AppConfig } from '../config/schema.js';
import { DEFAULT_API_PATH_WITH_WEB } from '../http/web-app.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import { printJson, signingKeyOrFail } from './service-context.js';

interface EnvelopeReply {
  messages?: { message: string; severity: string }[];
}

/**
 * Where the configured server serves its API. With RestAPI:Path unset, that is the root for `serve` and /api for
 * `serve --web` (`npm start`), which the configuration cannot tell apart: both are tried, the root first.
 */
function defaultBases(config: AppConfig): string[] {
  const origin = `http://127.0.0.1:${config.Server.Port}`;
  if (config.RestAPI.Path) return [origin + config.RestAPI.Path];
  return config.Web.Enabled ? [origin + DEFAULT_API_PATH_WITH_WEB] : [origin, origin + DEFAULT_API_PATH_WITH_WEB];
}

async function send(base: string, path: string, token: string): Promise<Response> {
  try {
    return await fetch(`${base}/lookup-table${path}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
  } catch (err) {
    throw new CliError(`cannot reach the server at ${base}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`
      + ' (give its API base URL with --url, or set Server:Port and RestAPI:Path as the server has them)');
  }
}

/** Whether the API answers at `base`: its anonymous liveness route is there. */
const servesApi = (base: string) => fetch(`${base}/health/live`).then((r) => r.ok, () => false);

/** The first of `bases` where the API answers, else the first (whose failure then says what went wrong). */
async function apiBase(bases: string[]): Promise<string> {
  if (bases.length > 1) for (const base of bases) if (await servesApi(base)) return base;
  return bases[0];
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
    .option('--url <url>', 'the API base URL of a running server (default http://127.0.0.1:<Server:Port><RestAPI:Path>; with RestAPI:Path unset, also /api as serve --web has it)')
    .option('--json', 'machine-readable output: { "flushed": [...] }')
    .action(async (types: string[], opts: { all?: boolean; url?: string; json?: boolean }) => {
      if (!opts.all === !types.length) throw new CliError('give lookup table types, or --all', 2);
      const { config } = signingKeyOrFail(configOrFail());
      const base = await apiBase(opts.url ? [opts.url.replace(/\/$/, '')] : defaultBases(config));
      const token = signAccessToken(tokenSettings(config), { sub: 'restlayer-cli', name: 'restlayer CLI', role: ['Administrator'] }, 60);
      for (const path of opts.all ? [''] : types.map((t) => '/' + encodeURIComponent(t))) {
        const response = await send(base, path, token);
        const reply = (await response.json().catch(() => ({}))) as EnvelopeReply;
        if (!response.ok) {
          const text = reply.messages?.map((m) => m.message).join(' ') || `the server answered ${response.status}`;
          // An unknown table is a 404 too; only a base where the API is not says to look at the URL.
          const misplaced = response.status === 404 && !(await servesApi(base));
          throw new CliError(misplaced ? `${text} (${base} is not the API base of a restlayer server: give it with --url, or set RestAPI:Path as the server has it)` : text);
        }
        const what = opts.all ? 'all lookup tables' : decodeURIComponent(path.slice(1));
        if (!opts.json) process.stdout.write(`flushed ${what}\n`);
      }
      if (opts.json) printJson({ flushed: opts.all ? 'all' : types });
    });
}
