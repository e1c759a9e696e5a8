import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterCluster, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { userKey } from './user-store.js';

export interface ThrottleSettings {
  accountFailures: number;
  addressFailures: number;
  windowSeconds: number;
}

/**
 * Failed logins counted per account and per client address (rate-limiter-flexible). Past either limit, attempts
 * are refused without checking the password until the window ends; a success clears the account's count.
 */
export class LoginThrottle {
  constructor(private readonly byAccount: RateLimiterAbstract, private readonly byAddress: RateLimiterAbstract) {}

  private static create(s: ThrottleSettings, make: (keyPrefix: string, points: number) => RateLimiterAbstract): LoginThrottle {
    return new LoginThrottle(make('login-account', s.accountFailures), make('login-address', s.addressFailures));
  }

  /** One process: counters in memory. */
  static inMemory(s: ThrottleSettings): LoginThrottle {
    return LoginThrottle.create(s, (keyPrefix, points) => new RateLimiterMemory({ keyPrefix, points, duration: s.windowSeconds }));
  }

  /** Workers of one `serve --workers N`: counters kept by the primary (which runs RateLimiterClusterMaster). */
  static inCluster(s: ThrottleSettings): LoginThrottle {
    return LoginThrottle.create(s, (keyPrefix, points) => new RateLimiterCluster({ keyPrefix, points, duration: s.windowSeconds, timeoutMs: 2_000 }));
  }

  /** Every instance: counters in Redis. */
  static inRedis(s: ThrottleSettings, client: Redis): LoginThrottle {
    return LoginThrottle.create(s, (keyPrefix, points) => new RateLimiterRedis({ storeClient: client, keyPrefix, points, duration: s.windowSeconds }));
  }

  /** Seconds the caller must wait, or 0 when the attempt may go ahead. */
  async retryAfter(userName: string, address: string): Promise<number> {
    const [account, client] = await Promise.all([this.byAccount.get(userKey(userName)), this.byAddress.get(address)]);
    let ms = 0;
    if (account && account.consumedPoints >= this.byAccount.points) ms = Math.max(ms, account.msBeforeNext);
    if (client && client.consumedPoints >= this.byAddress.points) ms = Math.max(ms, client.msBeforeNext);
    return Math.ceil(ms / 1000);
  }

  async failed(userName: string, address: string): Promise<void> {
    // consume() rejects once the limit is passed; that is the point of counting, not an error.
    await Promise.allSettled([this.byAccount.consume(userKey(userName)), this.byAddress.consume(address)]);
  }

  async succeeded(userName: string): Promise<void> {
    await this.byAccount.delete(userKey(userName));
  }
}
