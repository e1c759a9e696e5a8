import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { TokenSettings } from './token-keys.js';

export interface AccessTokenClaims {
  sub: string;
  name: string;
  role: string[];
  /** The login session, so that refresh can find it (variant A). */
  sid?: string;
}

/** Signs an access token with this server's newest key: iss, aud, sub, name, role, iat, nbf, exp, jti, kid. */
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
