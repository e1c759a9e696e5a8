import { randomBytes } from 'node:crypto';

/** A secret of the configuration: its key, the environment variable an operator sets, and how a fresh value is made. */
export interface Secret {
  key: string;
  variable: string;
  generate(): string;
}

/** 256 random bits as Base64: what every key below needs at least (Base64 key bytes, or a UTF-8 string of 32+ bytes). */
const freshKey = () => randomBytes(32).toString('base64');

/**
 * The secrets each authentication variant needs in production. Lists take their first entry's variable: a single key
 * is the common case, and a signing key without an Issuer is one of ValidIssuer.
 */
export const variantSecrets: Record<'A' | 'B', Secret[]> = {
  A: [
    { key: 'Authentication:Schemes:Bearer:SigningKeys', variable: 'Authentication__Schemes__Bearer__SigningKeys__0__Value', generate: freshKey },
    { key: 'Authentication:Cookie:Keys', variable: 'Authentication__Cookie__Keys', generate: freshKey },
  ],
  B: [{ key: 'AuthConfig:SigningKey', variable: 'AuthConfig__SigningKey', generate: freshKey }],
};

/** The environment variable that sets the secret `key` (spec notation). */
export function secretVariable(key: string): string {
  return [...variantSecrets.A, ...variantSecrets.B].find((s) => s.key === key)?.variable ?? key.split(':').join('__');
}
