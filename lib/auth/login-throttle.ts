import { type RateLimiterAbstract, RateLimiterMemory } from 'rate-limiter-flexible';
import { userKey } from '../../services/auth/user-store.js';

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

  static inMemory(s: ThrottleSettings): LoginThrottle {
    return new LoginThrottle(
      new RateLimiterMemory({ keyPrefix: 'login-account', points: s.accountFailures, duration: s.windowSeconds }),
      new RateLimiterMemory({ keyPrefix: 'login-address', points: s.addressFailures, duration: s.windowSeconds }),
    );
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
