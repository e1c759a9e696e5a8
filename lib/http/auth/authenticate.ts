import type { Middleware, Next } from 'koa';
import koaJwt from 'koa-jwt';
import jwt from 'jsonwebtoken';
import type { ErrorMessage } from '../../envelope/error-message.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import type { AppContext, AppExtensions, AppState } from '../context.js';
import { respond } from '../respond.js';
import { cookieSession, endCookieSession, hasCookieSessions } from './cookie-sessions.js';
import type { Credential } from '../../auth/credential-stamp.js';
import type { CallerGrants, RoleGrants } from '../../auth/permission-grants.js';
import { type Principal, principalFromClaims, type TokenClaims } from '../../auth/principal.js';
import type { ITokenService } from '../../auth/token-service.js';
import { type TokenSettings, candidateKeys } from '../../auth/token-keys.js';
import { CLOCK_TOLERANCE_SECONDS, verificationOptions } from '../../auth/token-verifier.js';
import type { IUserAccess } from '../../auth/user-access.js';
import { NO_ATTRIBUTES } from '../../auth/user-attributes.js';
import { VerifiedTokenCache } from '../../auth/verified-tokens.js';

declare module '../context.js' {
  interface AppState {
    /** The caller, once the route's gate let them in (or identified them). */
    principal?: Principal;
    /** Set by koa-jwt when a bearer token verified. */
    claims?: TokenClaims;
    /** Set by koa-jwt when a bearer token was present but did not verify. */
    jwtOriginalError?: Error;
    /** What the caller may do (their roles' grants, or an operator token's action), once the gate let them in. */
    grants?: CallerGrants;
  }
}

/** Tokens without `exp` never expire, which we refuse: they cannot be contained once leaked. */
class TokenRejected extends Error {}

export const authMessages = {
  unauthenticated: () => MESSAGES.Security_Unauthenticated(),
  expired: () => MESSAGES.Security_TokenExpired(),
  invalid: () => MESSAGES.Security_TokenInvalid(),
  forbidden: () => MESSAGES.Security_Forbidden(),
  csrf: () => MESSAGES.Security_CsrfRejected(),
};

export interface CallerOptions {
  /** Origins, besides the server's own, allowed to send cookie-authenticated unsafe requests. */
  allowedOrigins: readonly string[];
  /** Absolute lifetime of a cookie login. */
  cookieAbsoluteMs: number;
  /**
   * Identify only (an anonymous route marked `identifies`): a valid caller becomes the principal; no caller, or
   * credentials that are invalid or ended, go on with none instead of a 401.
   */
  optional?: boolean;
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The origin a browser says the request came from: Origin, or the origin of Referer when there is no Origin header
 * at all. `Origin: null` is what a browser sends when it will not name the origin (sandboxed frames, `data:` and
 * `file:` pages, cross-site redirects): an attacker can produce it at will while still carrying a Referer of the
 * site, so it is refused rather than replaced by Referer.
 */
function requestOrigin(ctx: AppContext): string | undefined {
  const origin = ctx.headers.origin;
  if (origin !== undefined) return origin === 'null' ? undefined : origin;
  const referer = ctx.get('Referer');
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/** The caller of a cookie session, or undefined when there is none (or it outlived its absolute lifetime). */
function cookieCaller(ctx: AppContext, cookieAbsoluteMs: number): Caller | undefined {
  if (!hasCookieSessions(ctx)) return undefined;
  const session = cookieSession(ctx);
  if (!session?.user) return undefined;
  if (!session.loginAt || Date.now() - session.loginAt > cookieAbsoluteMs) {
    endCookieSession(ctx);
    return undefined;
  }
  // The session keeps who logged in; the attributes come from the store (requireCaller), never from the cookie.
  return { principal: { ...session.user, authenticationType: 'Cookies', attributes: NO_ATTRIBUTES }, credential: { stamp: session.stamp, issuedAtMs: session.loginAt } };
}

/** Who calls, and what their credential says of itself, for the check that the user's credentials have not ended. */
interface Caller {
  principal: Principal;
  credential: Credential;
}

function bearerCaller(claims: TokenClaims): Caller | undefined {
  const principal = principalFromClaims(claims);
  if (!principal) return undefined;
  const stamp = typeof claims.stamp === 'string' ? claims.stamp : undefined;
  return { principal, credential: { stamp, issuedAtMs: typeof claims.iat === 'number' ? claims.iat * 1000 : undefined } };
}

/** Sets `ctx.state.claims` or `ctx.state.jwtOriginalError` from the bearer header; a promise only when it must wait. */
export type BearerVerification = (ctx: AppContext) => void | Promise<void>;

/**
 * Verifies `Authorization: Bearer` with koa-jwt, with the options of lib/auth/token-verifier.ts (HS256 only, issuer
 * and audience checked), `exp` required, the key picked by `kid` or issuer; `sessions` tells whether the token's login
 * session is still active. It never answers by itself; `requireCaller` decides what a failure means for the route.
 * A token verified before, of a session known active, is settled without waiting for anything.
 */
export function bearerVerification(settings: TokenSettings, sessions: Pick<ITokenService, 'isSessionActive'>): BearerVerification {
  const verify = koaJwt({
    passthrough: true,
    key: 'claims',
    ...verificationOptions(settings),
    secret: async (header: { kid?: unknown }, payload: { iss?: unknown }) => {
      const keys = candidateKeys(settings, header.kid, payload?.iss);
      if (!keys.length) throw new TokenRejected('no key for this token');
      return keys as unknown as Buffer[];
    },
    isRevoked: async (_ctx: AppContext, decoded: TokenClaims) => {
      if (typeof decoded.exp !== 'number') throw new TokenRejected('token without exp');
      return false;
    },
  } as koaJwt.Options) as unknown as Middleware<AppState, AppExtensions>;
  const verified = new VerifiedTokenCache(CLOCK_TOLERANCE_SECONDS);
  const afterVerify = async () => {};

  // Tokens of a revoked login (reuse detected, user disabled, logout) stop then, not when they expire.
  const settle = (ctx: AppContext, claims: TokenClaims, active: boolean) => {
    ctx.state.claims = active ? claims : undefined;
    if (!active) ctx.state.jwtOriginalError = new TokenRejected('the login session of this token has ended');
  };
  const verifyUnknown = async (ctx: AppContext, token: string) => {
    await verify(ctx, afterVerify);
    const claims = ctx.state.claims;
    if (!claims) return;
    verified.set(token, claims);
    if (typeof claims.sid === 'string') settle(ctx, claims, await sessions.isSessionActive(claims.sid));
  };

  return (ctx) => {
    const authorization = ctx.get('Authorization');
    // koa-jwt would report a missing token (or another scheme, such as Basic) as a bad token; no bearer token at all
    // is a different answer: Security_Unauthenticated.
    if (!/^bearer\s/i.test(authorization)) return;
    const token = authorization.slice(7).trim();
    const claims = verified.get(token);
    if (!claims) return verifyUnknown(ctx, token);
    if (typeof claims.sid !== 'string') {
      ctx.state.claims = claims;
      return;
    }
    const active = sessions.isSessionActive(claims.sid);
    if (typeof active === 'boolean') return settle(ctx, claims, active);
    return active.then((known) => settle(ctx, claims, known));
  };
}

function reject(ctx: AppContext, m: ErrorMessage, error?: string) {
  ctx.set('WWW-Authenticate', error ? `Bearer error="${error}"` : 'Bearer');
  respond(ctx, [m]);
}

/**
 * The secured-by-default gate of one route: a caller is required (bearer token first, else the cookie session) whose
 * user's credentials have not ended since, a cookie caller's unsafe request must come from an allowed origin, and
 * the caller's roles must grant `permission` when the route names one (403 before anything of the operation runs:
 * its body is not even read). The caller's grants are kept in `ctx.state.grants` for the route runner.
 */
export function requireCaller(
  verifyBearer: BearerVerification, access: Pick<IUserAccess, 'check'>, roleGrants: RoleGrants, permission: string | undefined, options: CallerOptions,
): Middleware<AppState, AppExtensions> {
  const allowedOrigins = new Set(options.allowedOrigins);
  return async (ctx: AppContext, next: Next) => {
    const refuse = (m: ErrorMessage, error?: string) => (options.optional ? next() : reject(ctx, m, error));
    if (!ctx.state.principal) {
      const verifying = verifyBearer(ctx);
      if (verifying) await verifying;
      const failure = ctx.state.jwtOriginalError;
      if (failure) return refuse(failure instanceof jwt.TokenExpiredError ? authMessages.expired() : authMessages.invalid(), 'invalid_token');
      const claims = ctx.state.claims;
      const caller = claims ? bearerCaller(claims) : cookieCaller(ctx, options.cookieAbsoluteMs);
      if (claims && !caller) return refuse(authMessages.invalid(), 'invalid_token');
      if (!caller) return refuse(authMessages.unauthenticated());
      // The user's credentials may have ended since this one was issued (disable, set-password, remove); its
      // attributes come with the answer, from the same cache.
      const checking = access.check(caller.principal.userName, caller.credential);
      const checked = checking instanceof Promise ? await checking : checking;
      if (!checked.allowed) {
        if (claims) return refuse(authMessages.invalid(), 'invalid_token');
        endCookieSession(ctx);
        return refuse(authMessages.unauthenticated());
      }
      // The caller's principal was built for this request alone: completing it costs no copy on the hot path.
      const { principal } = caller;
      principal.attributes = checked.attributes;
      if (principal.authenticationType === 'Cookies' && !safeMethods.has(ctx.method)) {
        const origin = requestOrigin(ctx);
        // Koa 3's ctx.origin echoes the Origin header, so the server's own origin is built from protocol and host.
        const own = `${ctx.protocol}://${ctx.host}`;
        if (!origin || (origin !== own && !allowedOrigins.has(origin))) return respond(ctx, [authMessages.csrf()]);
      }
      ctx.state.principal = principal;
    }
    // Resolved once per distinct set of roles (lib/auth/permission-grants.ts): a map lookup here.
    const grants = (ctx.state.grants ??= roleGrants.forRoles(ctx.state.principal!.roles));
    if (permission !== undefined && !grants.holds(permission)) return respond(ctx, [authMessages.forbidden()]);
    await next();
  };
}
