import type { ErrorMessage } from '../envelope/error-message.js';
import type { Output } from '../envelope/output.js';
import type { Verb } from '../http-verbs.js';
import { CookieJar } from './cookie-jar.js';
import { RecordTags } from './record-tags.js';
import { type DateProperties, reviveDates } from './dates.js';
import { clientOutput, externalMessage } from './errors.js';
import { type RemoteApi, apiUrl } from './remote-api.js';

/** One call of the API: a verb, a path below the API base with `{param}` placeholders, and its inputs. */
export interface HttpCall {
  verb: Verb;
  path: string;
  params?: Record<string, string | number>;
  query?: URLSearchParams;
  /** Sent as JSON (Dates as ISO 8601). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Which result properties become Date objects (default: every ISO date-time string). */
  dates?: DateProperties;
}

/** An answer: the envelope as the operation's Output, plus the HTTP facts a proxy may need (ETag, Location). */
export interface HttpReply<T> {
  /** The HTTP status; 0 when the server could not be reached. */
  status: number;
  headers: Headers;
  output: Output<T>;
}

export type Environment = 'node' | 'browser';

export interface HttpOptions {
  /** The fetch to use (default: the platform's); tests wrap it to count or record calls. */
  fetch?: typeof fetch;
  /** `browser` lets the browser keep cookies and set Origin; `node` keeps a cookie jar. Detected when not given. */
  environment?: Environment;
  /** Keep a cookie jar (cookie mode outside a browser). */
  cookies?: boolean;
  /**
   * The languages the user reads, most preferred first (`['de-AT', 'en']`), sent as Accept-Language so the server
   * writes its messages in the first it has (contract part 16). A browser sends its user's own when this is not given.
   */
  language?: string | readonly string[];
  /**
   * Send If-Match with a write when the client holds the ETag of the record it writes (read before through this
   * client; for a line, its order's): a record someone else changed meanwhile then answers 412 Entity_Concurrency
   * (type Concurrency) and nothing is written. Default true; false writes whatever the record is now.
   */
  conditional?: boolean;
}

/** `['de-AT', 'de', 'en']` as Accept-Language: each after the first weighed a little less (q=0.9, 0.8, … never below 0.1). */
export function acceptLanguage(language: string | readonly string[]): string {
  const tags = typeof language === 'string' ? [language] : language;
  return tags.map((tag, i) => (i === 0 ? tag : `${tag};q=${Math.max(0.1, 1 - i / 10).toFixed(1)}`)).join(', ');
}

const unsafe = new Set<Verb>(['POST', 'PUT', 'PATCH', 'DELETE']);

export function detectEnvironment(): Environment {
  const g = globalThis as { window?: unknown; document?: unknown };
  return typeof g.window === 'object' && typeof g.document === 'object' ? 'browser' : 'node';
}

function isMessage(m: unknown): m is ErrorMessage {
  const o = m as Record<string, unknown>;
  return typeof o === 'object' && o !== null && typeof o.code === 'string' && typeof o.message === 'string'
    && typeof o.severity === 'string' && typeof o.type === 'string';
}

/**
 * The transport of every client call: builds the URL, sends JSON, and reads EVERY answer — success, 4xx, 5xx — as the
 * envelope, returning it as the operation's Output (`result`, `messages`, `totalCount`) with dates revived.
 * It never throws for what the network or the server does: an unreachable server is an Output with the error
 * `Client_NetworkError` and a body that is not the envelope (a proxy's HTML error page) one with
 * `Client_InvalidResponse`, both of type External, as the contract types a failing outside system. That keeps one
 * way of handling failures (look at `messages`) for callers; only a session that cannot be renewed throws
 * (SessionExpiredError, raised by the session, not here).
 */
export class HttpCore {
  readonly environment: Environment;
  readonly origin: string;
  private readonly fetch: typeof fetch;
  private readonly jar?: CookieJar;
  private readonly acceptLanguage?: string;
  /** The ETags of records read, for the If-Match of writes (undefined with `conditional: false`). */
  readonly tags?: RecordTags;

  constructor(readonly settings: RemoteApi, options: HttpOptions = {}) {
    this.environment = options.environment ?? detectEnvironment();
    this.origin = new URL(settings.BaseAddress).origin;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    if (options.cookies && this.environment === 'node') this.jar = new CookieJar(this.origin);
    if (options.language?.length) this.acceptLanguage = acceptLanguage(options.language);
    if (options.conditional !== false) this.tags = new RecordTags();
  }

  /** The absolute URL of a call, its `{params}` filled in (percent-encoded) and its query string appended. */
  url(call: Pick<HttpCall, 'path' | 'params' | 'query'>): string {
    const path = call.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = call.params?.[name];
      if (value === undefined || value === null) throw new TypeError(`missing path parameter ${name} of ${call.path}`);
      return encodeURIComponent(String(value));
    });
    const query = call.query?.toString();
    return apiUrl(this.settings, path) + (query ? `?${query}` : '');
  }

  /** Sends one request and reads its answer; `auth` adds the headers of the session (Authorization). */
  async send<T>(call: HttpCall, auth: Record<string, string> = {}): Promise<HttpReply<T>> {
    const url = this.url(call);
    const headers = new Headers({ Accept: 'application/json', ...(this.acceptLanguage ? { 'Accept-Language': this.acceptLanguage } : {}), ...call.headers, ...auth });
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      // PATCH bodies are JSON merge patches (RFC 7396): null clears, absent keeps.
      headers.set('Content-Type', call.verb === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
    }
    const target = unsafe.has(call.verb) && !headers.has('If-Match') ? this.tags?.held(url) : undefined;
    if (target) headers.set('If-Match', target.etag);
    if (this.environment === 'node') {
      headers.set('User-Agent', this.settings.ClientName);
      const cookie = this.jar?.header(url);
      if (cookie) headers.set('Cookie', cookie);
      // A browser sends Origin itself; elsewhere the client says where it belongs, as the CSRF check of
      // cookie-authenticated changes requires (harmless with bearer tokens).
      if (this.jar && unsafe.has(call.verb)) headers.set('Origin', this.origin);
    }
    let response: Response;
    try {
      response = await this.fetch(url, {
        method: call.verb,
        headers,
        body,
        credentials: this.environment === 'browser' && this.settings.Authorization === false ? 'include' : 'same-origin',
      });
    } catch (err) {
      const cause = (err as { cause?: { message?: string; code?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
      return {
        status: 0,
        headers: new Headers(),
        output: clientOutput<T>(undefined, [externalMessage('Client_NetworkError', `The server at ${this.origin} could not be reached (${reason}).`)]),
      };
    }
    this.jar?.store(url, response.headers);
    this.tags?.note(call.verb, url, target, response.status, response.headers.get('ETag'));
    return { status: response.status, headers: response.headers, output: await this.read<T>(response, call.dates) };
  }

  private async read<T>(response: Response, dates: DateProperties | undefined): Promise<Output<T>> {
    const invalid = (why: string) => clientOutput<T>(undefined, [
      externalMessage('Client_InvalidResponse', `The server answered ${response.status} with ${why}, not the API's envelope.`),
    ]);
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      return clientOutput<T>(undefined, [externalMessage('Client_NetworkError', `The answer of the server at ${this.origin} was cut off (${(err as Error).message}).`)]);
    }
    // 304 Not Modified (a conditional GET) has no body: no result, no messages; the caller keeps what it had.
    if (!text && response.status === 304) return clientOutput<T>(undefined, []);
    let envelope: { result?: unknown; messages?: unknown; totalCount?: unknown; nextCursor?: unknown };
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      return invalid(text ? 'a body that is not JSON' : 'an empty body');
    }
    if (typeof envelope !== 'object' || envelope === null || !Array.isArray(envelope.messages) || !envelope.messages.every(isMessage)) {
      return invalid('JSON');
    }
    const totalCount = typeof envelope.totalCount === 'number' ? envelope.totalCount : undefined;
    const result = envelope.result === undefined ? undefined : (reviveDates(envelope.result, dates) as T);
    const nextCursor = typeof envelope.nextCursor === 'string' ? envelope.nextCursor : undefined;
    return clientOutput<T>(result, envelope.messages, totalCount, nextCursor);
  }

  /** Forgets the cookies of a cookie login (Node). */
  clearCookies(): void {
    this.jar?.clear();
  }
}
