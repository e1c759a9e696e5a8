import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { OperatorAction } from './operator-action.js';
import type { TokenClaims } from './principal.js';
import type { TokenSettings } from './token-keys.js';
import { verifyToken } from './token-verifier.js';

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

/** Whether `token` claims to be an operator token (unverified: only to pick which verification applies). */
export function claimsOperator(token: string): boolean {
  const decoded = jwt.decode(token, { json: true });
  const aud = decoded?.aud;
  return (Array.isArray(aud) ? aud : [aud]).some((a) => typeof a === 'string' && a.startsWith(AUDIENCE_PREFIX));
}

/** The verified claims of an operator token for `action` at this server's URL, or undefined when it is not one. */
export function verifyOperator(token: string, settings: TokenSettings, audience: string): TokenClaims | undefined {
  const claims = verifyToken(settings, token, { audience });
  if (!claims) return undefined;
  const life = typeof claims.exp === 'number' && typeof claims.iat === 'number' ? claims.exp - claims.iat : Infinity;
  return life <= OPERATOR_TOKEN_MAX_SECONDS ? claims : undefined;
}
