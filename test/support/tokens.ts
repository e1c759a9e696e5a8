import { createHmac, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';

/** A new signing key as configuration takes it: Base64 of 32 random bytes. */
export const newKey = (bytes = 32) => randomBytes(bytes).toString('base64');

export interface MintOptions {
  /** Base64 key (variant A) or the raw key bytes; a string key is decoded as Base64 unless `utf8` is set. */
  key: string | Buffer;
  utf8?: boolean;
  issuer?: string;
  audience?: string;
  claims?: Record<string, unknown>;
  sign?: jwt.SignOptions;
}

/** An HS256 token for user `tester` with role Administrator, 10 minutes of lifetime unless `sign` says otherwise. */
export function mint(options: MintOptions): string {
  const key = Buffer.isBuffer(options.key) ? options.key : Buffer.from(options.key, options.utf8 ? 'utf8' : 'base64');
  return jwt.sign({ sub: 'tester', name: 'Test User', role: ['Administrator'], ...options.claims }, key, {
    algorithm: 'HS256',
    expiresIn: 600,
    ...(options.issuer !== undefined ? { issuer: options.issuer } : {}),
    ...(options.audience !== undefined ? { audience: options.audience } : {}),
    ...options.sign,
  });
}

const b64url = (value: object | string | Buffer) =>
  Buffer.from(typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value)).toString('base64url');

/** A JWT assembled by hand, so tests can produce what jsonwebtoken refuses to sign (alg none, odd headers). */
export function handMadeToken(header: object, payload: object, key?: Buffer, hmac: 'sha256' | 'sha512' = 'sha256'): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  const signature = key ? createHmac(hmac, key).update(input).digest('base64url') : '';
  return `${input}.${signature}`;
}

/** The same token with its signature altered in its first character (so the bytes surely change). */
export function tamperSignature(token: string): string {
  const [h, p, s] = token.split('.');
  const first = s[0] === 'A' ? 'B' : 'A';
  return `${h}.${p}.${first}${s.slice(1)}`;
}

/** The same token with a payload claim changed but the original signature kept. */
export function tamperPayload(token: string, claims: Record<string, unknown>): string {
  const [h, p, s] = token.split('.');
  const payload = { ...JSON.parse(Buffer.from(p, 'base64url').toString('utf8')), ...claims };
  return `${h}.${b64url(payload)}.${s}`;
}
