import { randomBytes } from 'node:crypto';
import { childEnv } from './processes.js';
import { createTestDatabase, redisPrefix, redisUrl } from './test-stores.js';

/** What several server processes of one deployment share: keys, one PostgreSQL database and one Redis prefix. */
export interface Deployment {
  env: NodeJS.ProcessEnv;
  key: string;
  issuer: string;
  audience: string;
  prefix: string;
  drop(): Promise<void>;
}

export async function deployment(extra: Record<string, string> = {}): Promise<Deployment> {
  const key = randomBytes(32).toString('base64');
  const database = await createTestDatabase(true);
  const prefix = redisPrefix();
  const env = childEnv({
    Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
    Authentication__Schemes__Bearer__SigningKeys__0__Value: key,
    Authentication__Cookie__Keys: randomBytes(32).toString('base64'),
    Authentication__PasswordHashCost: '10',
    Storage__Provider: 'postgres',
    Storage__Postgres__Url: database.url,
    Cache__Redis__Url: redisUrl,
    Cache__Redis__KeyPrefix: prefix,
    Log__Level: 'warn',
    ...extra,
  });
  return { env, key, issuer: 'restlayer', audience: 'restlayer', prefix, drop: database.drop };
}
