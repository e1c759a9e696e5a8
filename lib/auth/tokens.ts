import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { TokenSettings } from './token-keys.js';

export interface AccessTokenClaims {
  sub: string;
  name: string;
  role: string[];
  /** The login session, so that refresh can find it (variant A). */
  sid?: string;
  /**
   * The user's credential stamp when issued: the token stops when the user's stamp changes (disable, set-password,
   * remove). Only tokens for a tool rather than a user (the CLI's lookup flush) go without.
   */
  stamp?: string;
  /** The user's tenant (attribute `tenantId`) when issued: the token's tenant for its lifetime (contract part 12). */
  tid?: string;
}

/** Signs an access token with this server's newest key: iss, aud, sub, name, role, stamp, tid, iat, nbf, exp, jti, kid. */
export function signAccessToken(settings: TokenSettings, claims: AccessTokenClaims, lifetimeSeconds = settings.lifetimeSeconds): string {
  return jwt.sign({ ...claims, nbf: Math.floor(Date.now() / 1000) }, settings.signing.key, {
    algorithm: settings.algorithm,
    issuer: settings.signing.issuer,
    audience: settings.audience,
    expiresIn: lifetimeSeconds,
    jwtid: randomUUID(),
    keyid: settings.signing.id,
  });
}
