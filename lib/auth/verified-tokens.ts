import { BoundedMap } from '../bounded-map.js';
import type { TokenClaims } from './principal.js';

/**
 * Tokens that already passed verification, so a client sending the same token on every call pays for the
 * HMAC and the JSON decoding once. Entries die with the token's `exp` (plus the same clock tolerance the
 * verification allows) and the oldest go first when the cache is full, so its size stays bounded.
 */
export class VerifiedTokenCache {
  private readonly entries: BoundedMap<string, TokenClaims & { exp: number }>;

  constructor(private readonly toleranceSeconds: number, maxEntries = 10_000) {
    this.entries = new BoundedMap(maxEntries);
  }

  get(token: string): TokenClaims | undefined {
    const claims = this.entries.get(token);
    if (!claims) return undefined;
    if ((claims.exp + this.toleranceSeconds) * 1000 <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return claims;
  }

  set(token: string, claims: TokenClaims): void {
    if (typeof claims.exp !== 'number') return;
    this.entries.set(token, claims as TokenClaims & { exp: number });
  }
}
