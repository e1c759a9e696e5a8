import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { OPERATOR_TOKEN_MAX_SECONDS } from './operator-token.js';
import { CLOCK_TOLERANCE_SECONDS } from './token-verifier.js';

/**
 * How long an id is remembered: past the end of the longest life a server accepts (its exp, give or take the
 * clock tolerance on either side), so no token outlives the memory of its use.
 */
const REMEMBER_SECONDS = OPERATOR_TOKEN_MAX_SECONDS + 2 * CLOCK_TOLERANCE_SECONDS;

/**
 * The ids (`jti`) of operator tokens already used, where every server of the deployment sees them: in Redis for every
 * instance, on the `--workers` primary for its workers, in memory for one process (rate-limiter-flexible, as the
 * login throttle keeps its counters). Using an id is one atomic increment of its counter, so of a token replayed at
 * once to several workers or instances exactly one request gets through.
 */
export class UsedTokenIds {
  private constructor(private readonly limiter: RateLimiterAbstract) {}

  /** One process. */
  static inMemory(): UsedTokenIds {
    return new UsedTokenIds(new RateLimiterMemory({ keyPrefix: 'operator-token', points: 1, duration: REMEMBER_SECONDS }));
  }

  /** Workers of one `serve --workers N`: kept by the primary (which runs RateLimiterClusterMaster). */
  static inCluster(): UsedTokenIds {
    return new UsedTokenIds(new RateLimiterCluster({ keyPrefix: 'operator-token', points: 1, duration: REMEMBER_SECONDS, timeoutMs: 2_000 }));
  }

  /** Every instance: in Redis. */
  static inRedis(client: Redis): UsedTokenIds {
    return new UsedTokenIds(new RateLimiterRedis({ storeClient: client, keyPrefix: 'operator-token', points: 1, duration: REMEMBER_SECONDS }));
  }

  /**
   * Marks `jti` used: true the first time, false for every later use while it is remembered. A store that cannot be
   * reached rejects (the request then answers 503 as for any such fault): an id is never accepted unrecorded.
   */
  async firstUse(jti: string): Promise<boolean> {
    try {
      await this.limiter.consume(jti);
      return true;
    } catch (err) {
      if (err instanceof RateLimiterRes) return false;
      throw err;
    }
  }
}
