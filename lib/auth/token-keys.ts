import { type KeyObject, createHash, createSecretKey } from 'node:crypto';
import type { AppConfig } from '../config/schema.js';

export interface TokenKey {
  id: string;
  issuer: string;
  key: KeyObject;
}

/** Everything needed to verify bearer tokens, and to sign this server's own. */
export interface TokenSettings {
  algorithm: 'HS256';
  audience: string;
  issuers: string[];
  keys: TokenKey[];
  /** The key this server signs with: the newest key of its own issuer. */
  signing: TokenKey;
  lifetimeSeconds: number;
}

const keyId = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64url').slice(0, 16);

/** Variant A reads `Authentication:Schemes:Bearer`, variant B `AuthConfig`, both after `loadConfig` checked them. */
export function tokenSettings(config: AppConfig): TokenSettings {
  if (config.Authentication.Variant === 'B') {
    const bytes = Buffer.from(config.AuthConfig.SigningKey, 'utf8');
    const key: TokenKey = { id: keyId(bytes), issuer: config.AuthConfig.Issuer, key: createSecretKey(bytes) };
    return {
      algorithm: 'HS256',
      audience: config.AuthConfig.Audience,
      issuers: [key.issuer],
      keys: [key],
      signing: key,
      lifetimeSeconds: Math.round(config.AuthConfig.ExpiresMin * 60),
    };
  }
  const bearer = config.Authentication.Schemes.Bearer;
  const keys = bearer.SigningKeys.map((k): TokenKey => {
    const bytes = Buffer.from(k.Value, 'base64');
    return { id: k.Id || keyId(bytes), issuer: k.Issuer, key: createSecretKey(bytes) };
  });
  const own = keys.filter((k) => k.issuer === bearer.ValidIssuer);
  return {
    algorithm: 'HS256',
    audience: bearer.ValidAudience,
    issuers: [...new Set([bearer.ValidIssuer, ...keys.map((k) => k.issuer)])],
    keys,
    signing: own[own.length - 1],
    lifetimeSeconds: Math.round(config.Authentication.AccessTokenMinutes * 60),
  };
}

/** Keys that may have signed a token: the one it names by `kid`, else those of its issuer. */
export function candidateKeys(settings: TokenSettings, kid: unknown, issuer: unknown): KeyObject[] {
  if (typeof kid === 'string') {
    const byId = settings.keys.filter((k) => k.id === kid);
    if (byId.length) return byId.map((k) => k.key);
  }
  return settings.keys.filter((k) => k.issuer === issuer).map((k) => k.key);
}
