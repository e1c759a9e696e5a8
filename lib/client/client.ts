import type { Output } from '../envelope/output.js';
import { CookieSession } from './cookie-session.js';
import type { SessionExpiredError } from './errors.js';
import { type HttpCall, HttpCore, type HttpOptions, type HttpReply } from './http.js';
import type { OperationRoute } from './operations.js';
import { type RemoteApi, remoteApiDefaults } from './remote-api.js';
import { type RetryOptions, newIdempotencyKey, withRetries } from './retry.js';
import type { ClientSession } from './session.js';
import { TokenService, type TokenServiceOptions } from './token-service.js';

export type ClientOptions = Omit<HttpOptions, 'cookies'> & TokenServiceOptions & {
  /** How creates (secured POSTs, sent with an Idempotency-Key) are repeated after a network error or a 503. */
  retry?: RetryOptions;
};

/** The inputs of one operation call; verb and path come from its OperationRoute. */
export type CallInput = Omit<HttpCall, 'verb' | 'path'>;

/**
 * A client of one restlayer API: the HTTP core plus the session that authenticates secured calls — a TokenService
 * (`Authorization` true) or a CookieSession (false). Proxies (services/<service>/<service>-proxy.ts) take one.
 */
export class RestClient {
  readonly settings: RemoteApi;
  readonly http: HttpCore;
  readonly session: ClientSession;
  private readonly retry: RetryOptions;

  constructor(settings: Partial<RemoteApi> = {}, options: ClientOptions = {}) {
    this.settings = { ...remoteApiDefaults, ...settings };
    this.retry = options.retry ?? {};
    this.http = new HttpCore(this.settings, { ...options, cookies: !this.settings.Authorization });
    this.session = this.settings.Authorization ? new TokenService(this.http, options) : new CookieSession(this.http);
  }

  /** The token service in bearer mode (undefined in cookie mode). */
  get tokens(): TokenService | undefined {
    return this.session instanceof TokenService ? this.session : undefined;
  }

  login(userName: string, password: string): Promise<Output<unknown>> {
    return this.session.login(userName, password);
  }

  logout(): Promise<Output<unknown>> {
    return this.session.logout();
  }

  /** Calls `listener` when the session ends (Login_SessionExpired); answers a function that unsubscribes. */
  onSessionExpired(listener: (error: SessionExpiredError) => void): () => void {
    return this.session.onSessionExpired(listener);
  }

  /** Calls an operation and answers its Output; throws only SessionExpiredError. */
  async call<T>(operation: OperationRoute, input: CallInput = {}): Promise<Output<T>> {
    return (await this.send<T>(operation, input)).output;
  }

  /**
   * Like `call`, with the HTTP status and headers (ETag, Location) of the answer. A secured POST (a create) carries an
   * Idempotency-Key (a new one per call unless `input.headers` names one), so it is repeated after a network error or
   * a 503 with the same key: the server answers the first outcome again and writes at most once.
   */
  send<T>(operation: OperationRoute, input: CallInput = {}): Promise<HttpReply<T>> {
    const call: HttpCall = { ...input, verb: operation.verb, path: operation.path };
    if (operation.anonymous) return this.http.send<T>(call);
    if (operation.verb !== 'POST') return this.session.run<T>(call);
    const given = Object.keys(call.headers ?? {}).some((name) => name.toLowerCase() === 'idempotency-key');
    const keyed: HttpCall = given ? call : { ...call, headers: { ...call.headers, 'Idempotency-Key': newIdempotencyKey() } };
    return withRetries(() => this.session.run<T>(keyed), this.retry);
  }
}

export function createClient(settings: Partial<RemoteApi> = {}, options: ClientOptions = {}): RestClient {
  return new RestClient(settings, options);
}
