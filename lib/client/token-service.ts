import type { Output } from '../envelope/output.js';
import type { AuthToken } from '../auth/auth-models.js';
import { clientOutput } from './errors.js';
import type { HttpCall, HttpCore, HttpReply } from './http.js';
import { ClientSession } from './session.js';

/** What a login leaves the client with: variant A has a refresh token, variant B only the JWT. */
export interface TokenPair {
  accessToken: string;
  refreshToken?: string;
}

export interface TokenServiceOptions {
  /** `A` (default): `/auth/jwt` and refresh tokens. `B`: `/authentication`, a JWT used until it expires. */
  variant?: 'A' | 'B';
  /**
   * Refresh when less than this much of the access token's lifetime is left (default: a quarter of the lifetime,
   * at most 60 s: 60 s for the default 15-minute tokens).
   */
  refreshLeadSeconds?: number;
}

interface TokenState {
  accessToken: string;
  refreshToken?: string;
  /** Local clock, ms; Infinity for a token without `exp`. */
  expiresAt: number;
  lifetimeMs: number;
}

/** A refresh that worked, or an answer that says nothing about the session (server down, 5xx): calls report it. */
type Renewal = { token: string } | { failure: HttpReply<never> };

/** The payload of a JWT, read without verifying it (the server does that): the client only needs `exp` and `iat`. */
export function jwtClaims(token: string): { exp?: number; iat?: number } {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(part.padEnd(part.length + ((4 - (part.length % 4)) % 4), '=')), (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    return {
      exp: typeof claims.exp === 'number' ? claims.exp : undefined,
      iat: typeof claims.iat === 'number' ? claims.iat : undefined,
    };
  } catch {
    return {};
  }
}

const bearer = (token: string | undefined): Record<string, string> => (token ? { Authorization: `Bearer ${token}` } : {});

/** Answers of the refresh route that mean "this session cannot be renewed" rather than "try again later". */
const refusal = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * `RemoteApi:Authorization` true: bearer tokens.
 *
 * - `login` posts to `/auth/jwt` (variant A: an access and a refresh token) or `/authentication` (variant B: a JWT).
 * - Every secured call carries `Authorization: Bearer`. Before sending, a token with little lifetime left (see
 *   `refreshLeadSeconds`) is refreshed through `RemoteApi:RefreshTokenPath` with `{ accessToken, refreshToken }`;
 *   a call refused with 401 is refreshed once and sent again. There is one refresh in flight at a time: every call
 *   that needs it waits for it, and a call whose 401 came back after another call already refreshed simply retries
 *   with the new token.
 * - A refresh the server refuses (4xx: the refresh token was spent, rotated or revoked, the user disabled) ends the
 *   session: SessionExpiredError (`Login_SessionExpired`) for every waiting call and one `sessionexpired` event.
 *   A refresh that fails for other reasons (server unreachable, 5xx) keeps the session: calls answer that failure
 *   as their Output (and go on with the old token while it is still valid).
 * - Variant B has nothing to refresh with: its JWT is used until it expires, then Login_SessionExpired.
 * - Lifetimes are measured on the client's clock from the moment a token arrives, as `exp - iat` of the token, so a
 *   client whose clock is off refreshes neither too early nor too late. Tokens handed in with `setTokens` (a session
 *   saved earlier) are judged by `exp` against the client's clock, since when they arrived is unknown.
 */
export class TokenService extends ClientSession {
  private state?: TokenState;
  private refreshing?: Promise<Renewal>;
  readonly variant: 'A' | 'B';

  constructor(http: HttpCore, private readonly options: TokenServiceOptions = {}) {
    super(http);
    this.variant = options.variant ?? 'A';
  }

  /** The current tokens (to save a session), or undefined when logged out. */
  get tokens(): TokenPair | undefined {
    return this.state && { accessToken: this.state.accessToken, refreshToken: this.state.refreshToken };
  }

  /** Milliseconds until the access token expires, by the client's reckoning (Infinity without `exp`; undefined logged out). */
  get expiresInMs(): number | undefined {
    return this.state && this.state.expiresAt - Date.now();
  }

  /** How much lifetime must be left for the token to be sent without refreshing it first. */
  get refreshLeadMs(): number {
    if (this.options.refreshLeadSeconds !== undefined) return this.options.refreshLeadSeconds * 1000;
    return Math.min(60_000, (this.state?.lifetimeMs ?? 0) / 4);
  }

  /** Resumes a session saved earlier (e.g. across restarts of a command-line tool). */
  setTokens(pair: TokenPair): void {
    this.accept(pair, false);
  }

  async login(userName: string, password: string): Promise<Output<TokenPair>> {
    const credentials = { userName, password };
    if (this.variant === 'B') {
      const { output } = await this.http.send<string>({ verb: 'POST', path: '/authentication', body: credentials, dates: 'none' });
      if (typeof output.result !== 'string') return clientOutput<TokenPair>(undefined, output.messages);
      this.accept({ accessToken: output.result }, true);
      return clientOutput<TokenPair>({ accessToken: output.result }, output.messages);
    }
    const { output } = await this.http.send<AuthToken>({ verb: 'POST', path: '/auth/jwt', body: credentials, dates: 'none' });
    if (output.result) this.accept(output.result, true);
    return output;
  }

  /** Variant A ends the login session on the server (its refresh and access tokens stop working); both forget the tokens. */
  async logout(): Promise<Output<unknown>> {
    const state = this.state;
    this.forget();
    if (!state?.refreshToken) return clientOutput(undefined, []);
    const { output } = await this.http.send<unknown>({ verb: 'POST', path: '/auth/logout', body: {} }, bearer(state.accessToken));
    return output;
  }

  /**
   * Refreshes now (joining a refresh already in flight). Answers the new tokens, or the failure when the server could
   * not be asked; throws SessionExpiredError when the server refuses (or there is nothing to refresh with).
   */
  async refresh(): Promise<Output<TokenPair>> {
    if (!this.state?.refreshToken) this.expire([]);
    const renewal = await this.startRefresh();
    if ('failure' in renewal) return renewal.failure.output;
    return clientOutput(this.tokens, []);
  }

  async run<T>(call: HttpCall): Promise<HttpReply<T>> {
    const before = await this.usableToken();
    if ('failure' in before) return before.failure;
    let reply = await this.http.send<T>(call, bearer(before.token));
    if (reply.status !== 401) return reply;
    // Refused: once, refresh (or pick up the token another call just got) and send again.
    const after = await this.renewAfter401(before.token, reply.output.messages);
    if ('failure' in after) return after.failure;
    reply = await this.http.send<T>(call, bearer(after.token));
    if (reply.status === 401) this.expire(reply.output.messages);
    return reply;
  }

  protected forget(): void {
    this.state = undefined;
  }

  /** The token to send: refreshed first when little lifetime is left; none when logged out (the server answers 401). */
  private async usableToken(): Promise<{ token?: string } | { failure: HttpReply<never> }> {
    if (this.refreshing) await this.refreshing;
    const state = this.state;
    if (!state) return {};
    const left = state.expiresAt - Date.now();
    if (left > this.refreshLeadMs) return { token: state.accessToken };
    if (!state.refreshToken) return left > 0 ? { token: state.accessToken } : this.expire([]);
    const renewal = await this.startRefresh();
    // A refresh that could not be done (server unreachable) leaves the old token usable while it lasts.
    if ('failure' in renewal && this.state === state && left > 0) return { token: state.accessToken };
    return renewal;
  }

  private async renewAfter401(sent: string | undefined, messages: HttpReply<never>['output']['messages']): Promise<Renewal> {
    if (this.refreshing) return this.refreshing;
    const state = this.state;
    if (sent && state && state.accessToken !== sent) return { token: state.accessToken };
    if (!sent || !state?.refreshToken) return this.expire(messages);
    return this.startRefresh();
  }

  private startRefresh(): Promise<Renewal> {
    return (this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = undefined;
    }));
  }

  private async doRefresh(): Promise<Renewal> {
    const state = this.state;
    if (!state?.refreshToken) return this.expire([]);
    const reply = await this.http.send<AuthToken>({
      verb: 'POST',
      path: this.http.settings.RefreshTokenPath,
      body: { accessToken: state.accessToken, refreshToken: state.refreshToken },
      dates: 'none',
    });
    const pair = reply.output.result;
    if (pair?.accessToken && pair.refreshToken) {
      // A logout or a new login while the refresh was under way wins over its answer.
      if (this.state === state) this.accept(pair, true);
      return { token: this.state?.accessToken ?? pair.accessToken };
    }
    if (refusal(reply.status)) {
      if (this.state !== state) return this.state ? { token: this.state.accessToken } : this.expire(reply.output.messages);
      return this.expire(reply.output.messages);
    }
    return { failure: reply as HttpReply<never> };
  }

  private accept(pair: TokenPair, fresh: boolean): void {
    const { exp, iat } = jwtClaims(pair.accessToken);
    const now = Date.now();
    let expiresAt = Infinity;
    let lifetimeMs = Infinity;
    if (exp !== undefined) {
      if (fresh && iat !== undefined && exp > iat) {
        lifetimeMs = (exp - iat) * 1000;
        expiresAt = now + lifetimeMs;
      } else {
        expiresAt = exp * 1000;
        lifetimeMs = iat !== undefined && exp > iat ? (exp - iat) * 1000 : Math.max(0, expiresAt - now);
      }
    }
    this.state = { accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresAt, lifetimeMs };
    this.started();
  }
}
