import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import jwt from 'jsonwebtoken';
import type { OperatorAction } from './operator-action.js';
import type { TokenClaims } from './principal.js';
import type { TokenSettings } from './token-keys.js';
import { verifyToken } from './token-verifier.js';

/** How long the CLI's token lives: long enough for one request, too short to be worth keeping. */
export const OPERATOR_TOKEN_SECONDS = 10;
/** The longest life a server accepts, whoever signed it: an operator token is never meant to be kept. */
export const OPERATOR_TOKEN_MAX_SECONDS = 60;
const AUDIENCE_PREFIX = 'restlayer-operator:';

/**
 * What one operator token may act on: the path parameters of the request it is for (`{ userName: 'sp275' }` for
 * `DELETE /login-throttle/sp275`, `{ type: 'product' }` for one lookup table, `{}` for every table), as the route
 * reads them (decoded). A token for one user's unlock unlocks no one else.
 */
export type OperatorTarget = Readonly<Record<string, string>>;

/**
 * The audience of an operator token: its action and the API base URL it was sent to (origin and prefix, lower
 * case). Never the servers' own audience, so no other route's verification accepts it (401 there); and a token
 * sent to a wrong or hostile URL names that URL, which the real server does not answer to (Server:PublicUrl).
 */
export function operatorAudience(action: OperatorAction, apiBase: string): string {
  const url = new URL(apiBase);
  return `${AUDIENCE_PREFIX}${action}@${(url.origin + url.pathname.replace(/\/+$/, '')).toLowerCase()}`;
}

/**
 * Signs a token for `action` on `target` at `apiBase` with the configured key: no roles, no user, a few seconds of
 * life, and an id (`jti`) the server accepts once. One token per request.
 */
export function signOperatorToken(settings: TokenSettings, action: OperatorAction, apiBase: string, target: OperatorTarget): string {
  return jwt.sign({ sub: 'restlayer-cli', name: 'restlayer CLI', nbf: Math.floor(Date.now() / 1000), target }, settings.signing.key, {
    algorithm: settings.algorithm,
    issuer: settings.signing.issuer,
    audience: operatorAudience(action, apiBase),
    expiresIn: OPERATOR_TOKEN_SECONDS,
    jwtid: randomUUID(),
    keyid: settings.signing.id,
  });
}

/** Whether `token` claims to be an operator token (unverified: only to pick which verification applies). */
export function claimsOperator(token: string): boolean {
  const decoded = jwt.decode(token, { json: true });
  const aud = decoded?.aud;
  return (Array.isArray(aud) ? aud : [aud]).some((a) => typeof a === 'string' && a.startsWith(AUDIENCE_PREFIX));
}

/** The verified claims of an operator token, with the id the server accepts once. */
export interface OperatorClaims extends TokenClaims {
  jti: string;
}

/**
 * The verified claims of an operator token for one of `audiences` (its action at one of this server's API base URLs)
 * and for exactly `target`, living at most OPERATOR_TOKEN_MAX_SECONDS; undefined when it is not one. Whether its
 * `jti` was used before is the caller's to check (UsedTokenIds), once the rest holds.
 */
export function verifyOperator(token: string, settings: TokenSettings, audiences: readonly string[], target: OperatorTarget): OperatorClaims | undefined {
  if (!audiences.length) return undefined;
  const claims = verifyToken(settings, token, { audience: audiences });
  if (!claims) return undefined;
  const life = typeof claims.exp === 'number' && typeof claims.iat === 'number' ? claims.exp - claims.iat : Infinity;
  if (life > OPERATOR_TOKEN_MAX_SECONDS || typeof claims.jti !== 'string' || !claims.jti) return undefined;
  // A plain object of strings, compared as the route decoded its parameters (no prototype, no extra key).
  const named = claims.target;
  if (typeof named !== 'object' || named === null || Array.isArray(named) || !isDeepStrictEqual({ ...named }, { ...target })) return undefined;
  return claims as OperatorClaims;
}
