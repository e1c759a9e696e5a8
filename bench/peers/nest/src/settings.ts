// What the runner hands the peer (bench/lib/main.js): the store, the adapter, the JWT settings, the lookup payloads.
import { createSecretKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const settings = {
  adapter: process.env.ADAPTER === 'express' ? 'express' : 'fastify',
  store: process.env.STORE === 'postgres' ? 'postgres' : 'sqlite',
  sqlitePath: process.env.DATABASE_PATH ?? '',
  postgresUrl: process.env.DATABASE_URL ?? '',
  // The key as a KeyObject: jsonwebtoken given a string or Buffer first tries createPublicKey() (~0.5 ms of OpenSSL
  // per verify, see bench/peers/common.js); the other jwt peers and restlayer pass a KeyObject too.
  jwtKey: createSecretKey(Buffer.from(process.env.JWT_KEY ?? '', 'base64')),
  jwtIssuer: process.env.JWT_ISSUER ?? 'restlayer',
  jwtAudience: process.env.JWT_AUDIENCE ?? 'restlayer',
  payloads: new Map<string, unknown>(Object.entries(JSON.parse(readFileSync(process.env.PAYLOADS_FILE ?? '', 'utf8')))),
} as const;

export const isPostgres = settings.store === 'postgres';
