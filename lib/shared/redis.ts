import { Redis } from 'ioredis';

export interface RedisOptions {
  url: string;
  /** Prefix of every key and channel, so several deployments (or test runs) can share one Redis. */
  prefix: string;
  onError?: (err: Error) => void;
}

/**
 * A Redis client that fails fast while the server is unreachable (no offline queue, one retry), so requests
 * answer 503 instead of hanging; it keeps reconnecting in the background and recovers by itself.
 */
export function connectRedis(options: RedisOptions): Redis {
  const client = new Redis(options.url, {
    keyPrefix: options.prefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 3_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    lazyConnect: false,
  });
  client.on('error', (err: Error) => options.onError?.(err));
  return client;
}

/** Resolves when Redis answers PING; a connection still being made gets `waitMs` to become ready. */
export async function pingRedis(client: Redis, waitMs = 1_000): Promise<void> {
  if (client.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.off('ready', onReady);
        reject(Object.assign(new Error(`Redis is ${client.status}`), { code: 'ECONNREFUSED' }));
      }, waitMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      client.once('ready', onReady);
    });
  }
  await client.ping();
}
