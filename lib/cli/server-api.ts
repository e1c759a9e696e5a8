import type { AppConfig } from '../config/schema.js';
import { DEFAULT_API_PATH_WITH_WEB } from '../http/web-app.js';
import { CliError } from './cli-error.js';
import { printable } from './terminal-text.js';

interface EnvelopeReply {
  result?: unknown;
  messages: { message: string }[];
}

/** The envelope of a restlayer answer (contract part 1) as far as the CLI reads it, or undefined when `body` is not one. */
function envelopeOf(body: unknown): EnvelopeReply | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { messages } = body as { messages?: unknown };
  if (!Array.isArray(messages) || !messages.every((m) => typeof m === 'object' && m !== null && typeof (m as { message?: unknown }).message === 'string')) {
    return undefined;
  }
  return body as EnvelopeReply;
}

/** The most of a server's own text a failure line quotes: a message, not a page. */
const MAX_QUOTED = 300;

/** A server's text for the one line of a failure: control characters escaped (no second line), cut to MAX_QUOTED. */
function quoted(text: string): string {
  const one = printable(text);
  return one.length > MAX_QUOTED ? `${one.slice(0, MAX_QUOTED)}…` : one;
}

/** What the command expects in a success's `result`, and how to say it when it is missing. */
export interface ExpectedResult<T> {
  /** `cleared (true or false)`: what the failure line says was missing. */
  what: string;
  is(result: unknown): result is T;
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

/** Whether the API answers at `base`: its anonymous liveness route is there. */
const servesApi = (base: string) => fetch(`${base}/health/live`).then((r) => r.ok, () => false);

/**
 * The API base of the running server a command talks to: `--url` when given, else the first of the configured
 * server's candidate bases where the API answers (else the first, whose failure then says what went wrong).
 */
export async function serverApiBase(config: AppConfig, url: string | undefined): Promise<string> {
  if (url !== undefined && !URL.canParse(url)) {
    throw new CliError(`cannot reach the server at ${url}: not a URL (give its API base URL with --url, e.g. http://127.0.0.1:8080/api)`);
  }
  const bases = url ? [url.replace(/\/+$/, '')] : defaultBases(config);
  if (bases.length > 1) for (const base of bases) if (await servesApi(base)) return base;
  return bases[0];
}

/** The option every command that reaches a running server takes. */
export const URL_OPTION_HELP = 'the API base URL of a running server (default http://127.0.0.1:<Server:Port><RestAPI:Path>; with RestAPI:Path unset, also /api as serve --web has it)';

/**
 * Sends one request to the server's API with `token` and answers the envelope's result (checked with `expected`
 * when the command reads it). Whatever goes wrong is the command's one-line failure: a refusal quotes the server's
 * messages (naming the URL when the API is not there), and an answer that is not a restlayer envelope, or lacks the
 * result the command reads, says so and names the URL, rather than failing on a property of nothing (issue 37,
 * finding 9).
 */
export async function callServer<T = unknown>(base: string, method: string, path: string, token: string, expected?: ExpectedResult<T>): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${token}` } });
  } catch (err) {
    throw new CliError(`cannot reach the server at ${base}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`
      + ' (give its API base URL with --url, or set Server:Port and RestAPI:Path as the server has them)');
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const reply = envelopeOf(body);
  const request = `${method} ${base}${path}`;
  if (!reply) {
    const type = response.headers.get('content-type')?.split(';')[0] || 'no content type';
    throw new CliError(`${request} answered ${response.status} (${quoted(type)}) without a restlayer envelope: is ${base} the API base URL `
      + 'of a restlayer server? (give it with --url, or set Server:Port and RestAPI:Path as the server has them)');
  }
  if (!response.ok) {
    const said = reply.messages.map((m) => m.message).join(' ');
    const refused = said ? quoted(said) : `the server answered ${response.status}`;
    // A 404 may be the operation's own (an unknown table or user); only a base where the API is not says to look at the URL.
    const misplaced = response.status === 404 && !(await servesApi(base));
    if (misplaced) throw new CliError(`${refused} (${base} is not the API base of a restlayer server: give it with --url, or set RestAPI:Path as the server has it)`);
    // An operator token refused: the server names its own URL differently, or another key signed it.
    if (response.status === 401) {
      throw new CliError(`${refused} (the server at ${base} refused the CLI's token: it accepts one that names its Server:PublicUrl, or its `
        + 'loopback address from its own host, signed with its key; check --url, Server:PublicUrl and the signing key)');
    }
    throw new CliError(refused);
  }
  if (expected && !expected.is(reply.result)) {
    throw new CliError(`${request} answered ${response.status} without the result the CLI reads (${expected.what}): is ${base} a restlayer server `
      + 'of this version?');
  }
  return reply.result as T;
}
