// Shared by the peer servers: configuration from the environment and the "listening" line the runner waits for.
import { createSecretKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The lookup tables to serve, by type: { "operators": {...envelope...}, ... }, as fetched from restlayer. */
export const payloads = new Map(Object.entries(JSON.parse(readFileSync(process.env.PAYLOADS_FILE, 'utf8'))));

export const port = Number(process.env.PORT ?? 0);
export const host = process.env.HOST ?? '127.0.0.1';
/** "jwt": verify an HS256 bearer token on every request with the framework's JWT plugin. */
export const withJwt = process.env.AUTH === 'jwt';
export const jwtKey = Buffer.from(process.env.JWT_KEY ?? '', 'base64');
/**
 * The key as a KeyObject, for jsonwebtoken (koa-jwt, express-jwt), as restlayer passes it. Given a string or a Buffer,
 * jsonwebtoken 9 first tries createPublicKey() on it, which fails after ~0.5 ms of OpenSSL work on every verify; the
 * peers should show those frameworks configured well, not that trap.
 */
export const jwtSecretKey = createSecretKey(jwtKey);
export const jwtIssuer = process.env.JWT_ISSUER ?? 'restlayer';
export const jwtAudience = process.env.JWT_AUDIENCE ?? 'restlayer';

export const notFound = { messages: [{ code: 'Route_NotFound', message: 'Not found.', severity: 'Error', type: 'Data' }] };
export const unauthorized = { messages: [{ code: 'Security_TokenInvalid', message: 'Unauthorized.', severity: 'Error', type: 'Security' }] };

export function announce(address) {
  process.stdout.write(`peer is serving http://${address.address}:${address.port}\n`);
}

process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
