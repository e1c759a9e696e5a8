import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Middleware, Next } from 'koa';
import type { AppContext, AppExtensions, AppState } from '../http/context.js';
import { respond } from '../http/respond.js';
import type { OperatorAction } from './operator-action.js';
import { CLOCK_TOLERANCE_SECONDS, authMessages } from '../http/auth/authenticate.js';
import { type TokenSettings, candidateKeys } from './token-keys.js';

/** How long the CLI's token lives: long enough for the requests of one command, too short to be worth keeping. */
export const OPERATOR_TOKEN_SECONDS = 10;
/** The longest life a server accepts, whoever signed it: an operator token is never meant to be kept. */
const OPERATOR_TOKEN_MAX_SECONDS = 60;
const AUDIENCE_PREFIX = 'restlayer-operator:';

/**
 * The audience of an operator token: its action and the API base URL it was sent to (origin and prefix, lower
 * case). Never the servers' own audience, so no other route's verification accepts it (401 there); and a token
 * sent to a wrong or hostile URL names that URL, not the real server's.
 */
export function operatorAudience(action: OperatorAction, apiBase: string): string {
  const url = new URL(apiBase);
  return `${AUDIENCE_PREFIX}${action}@${(url.origin + url.pathname.replace(/\/+$/, '')).toLowerCase()}`;
}

/** Signs a token for `action` at `apiBase` with the configured key: no roles, no user, a few seconds of life. */
export function signOperatorToken(settings: TokenSettings, action: OperatorAction, apiBase: string): string {
  return jwt.sign({ sub: 'restlayer-cli', name: 'restlayer CLI', nbf: Math.floor(Date.now() / 1000) }, settings.signing.key, {
    algorithm: settings.algorithm,
    issuer: settings.signing.issuer,
    audience: operatorAudience(action, apiBase),
    expiresIn: OPERATOR_TOKEN_SECONDS,
    jwtid: randomUUID(),
    keyid: settings.signing.id,
  });
}

function bearerToken(ctx: AppContext): string | undefined {
  const authorization = ctx.get('Authorization');
  return /^bearer\s/i.test(authorization) ? authorization.slice(7).trim() : undefined;
}

/** Whether `token` claims to be an operator token (unverified: only to pick which verification applies). */
function claimsOperator(token: string): boolean {
  const decoded = jwt.decode(token, { json: true });
  const aud = decoded?.aud;
  return (Array.isArray(aud) ? aud : [aud]).some((a) => typeof a === 'string' && a.startsWith(AUDIENCE_PREFIX));
}

/** The verified claims of an operator token for `action` at this server's URL, or undefined when it is not one. */
function verifyOperator(token: string, settings: TokenSettings, audience: string): jwt.JwtPayload | undefined {
  const header = jwt.decode(token, { complete: true });
  if (!header || typeof header.payload === 'string') return undefined;
  for (const key of candidateKeys(settings, header.header.kid, header.payload.iss)) {
    try {
      const claims = jwt.verify(token, key, {
        // issuers is never empty: the server's own issuer is always first.
        algorithms: [settings.algorithm], issuer: settings.issuers as [string, ...string[]], audience, clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }) as jwt.JwtPayload;
      const life = typeof claims.exp === 'number' && typeof claims.iat === 'number' ? claims.exp - claims.iat : Infinity;
      return life <= OPERATOR_TOKEN_MAX_SECONDS ? claims : undefined;
    } catch {
      // Another candidate key may have signed it.
    }
  }
  return undefined;
}

/**
 * The gate of a route an operator token may call: a bearer token whose audience says "operator" must be one for
 * `action` at this server's API base (as the request reached it: protocol, host and prefix), else 401; any other
 * caller goes through `callerGate`, the route's ordinary gate. The operator is a principal without roles or user.
 */
export function operatorOrCaller(settings: TokenSettings, action: OperatorAction, prefix: string, callerGate: Middleware<AppState, AppExtensions>): Middleware<AppState, AppExtensions> {
  return (ctx: AppContext, next: Next) => {
    const token = bearerToken(ctx);
    if (!token || !claimsOperator(token)) return callerGate(ctx, next);
    const audience = operatorAudience(action, `${ctx.protocol}://${ctx.host}${prefix}`);
    if (!verifyOperator(token, settings, audience)) {
      ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
      respond(ctx, [authMessages.invalid()]);
      return Promise.resolve();
    }
    ctx.state.principal = { userName: 'restlayer-cli', name: 'restlayer CLI', roles: [], authenticationType: 'Bearer' };
    return next();
  };
}
