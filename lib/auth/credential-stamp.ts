import { randomBytes } from 'node:crypto';

/** A fresh credential stamp: 128 random bits, so a removed and re-added user never gets its old stamp back. */
export const newStamp = (): string => randomBytes(16).toString('base64url');

/** What the store says of a user's credentials; `endedMs` is 0 when they never ended. */
export type CredentialState =
  | { exists: true; disabled: boolean; stamp: string; endedMs: number }
  /** No such user; `endedMs` is when it was removed, if it ever existed. */
  | { exists: false; endedMs: number };

/** What a credential says of itself: the stamp it was issued under (ours carry one) and when it was issued. */
export interface Credential {
  stamp?: string;
  issuedAtMs?: number;
}

/**
 * Whether a credential of this user may still be used. Ours carry the stamp they were issued under, which the user
 * must still have: disable, set-password and remove replace or delete it, so even a login that checked the password
 * just before the change gets a token that stops. Tokens minted elsewhere with a configured key (`dotnet user-jwts`)
 * carry no stamp: they name users this server may not know, which is allowed, but a user it knows must be enabled and
 * the token issued after the credentials last ended. `iat` has whole seconds, so a token of the very second of the
 * end is refused too.
 */
export function credentialAllowed(state: CredentialState, credential: Credential): boolean {
  if (state.exists && state.disabled) return false;
  // A plain comparison: the stamp is no secret to the token's holder, and a token with another stamp needs the key.
  if (credential.stamp !== undefined) return state.exists && credential.stamp === state.stamp;
  if (state.endedMs === 0) return true;
  return credential.issuedAtMs !== undefined && credential.issuedAtMs > state.endedMs;
}
