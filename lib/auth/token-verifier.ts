import jwt from 'jsonwebtoken';
import type { TokenClaims } from './principal.js';
import { type TokenSettings, candidateKeys } from './token-keys.js';

/** Seconds of clock difference allowed between this server and whoever signed a token. */
export const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * What a valid token is, in one place: HS256 only, one of the known issuers, this server's audience (or the one
 * given: operator tokens name their own), within its lifetime give or take the clock tolerance. The bearer
 * middleware (koa-jwt) and `verifyToken` both take their options from here.
 */
export function verificationOptions(settings: TokenSettings, audience: string | readonly string[] = settings.audience) {
  return {
    algorithms: [settings.algorithm],
    // Never empty: the server's own issuer is always first.
    issuer: settings.issuers as [string, ...string[]],
    audience: audience as string | [string, ...string[]],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  } satisfies jwt.VerifyOptions;
}

export interface VerifyOptions {
  /** Another audience than the server's own (an operator token's: any one of these). */
  audience?: string | readonly string[];
  /** Check everything but the lifetime (a refresh presents its expired access token). */
  ignoreExpiration?: boolean;
}

/** The claims of `token` when one of the keys that may have signed it (by `kid`, else by issuer) did; else undefined. */
export function verifyToken(settings: TokenSettings, token: string, options: VerifyOptions = {}): TokenClaims | undefined {
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload !== 'object') return undefined;
  for (const key of candidateKeys(settings, decoded.header.kid, decoded.payload.iss)) {
    try {
      return jwt.verify(token, key, { ...verificationOptions(settings, options.audience), ignoreExpiration: options.ignoreExpiration ?? false }) as TokenClaims;
    } catch {
      // Another candidate key may have signed it.
    }
  }
  return undefined;
}
