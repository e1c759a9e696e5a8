import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { type ThrottleKeyOf, canonicalAddress, throttleKeys } from './throttle-keys.js';
import { userKey } from './user-store.js';
import { CheckGate } from './check-gate.js';
import { CHECKS_AT_ONCE } from './password.js';

export interface ThrottleSettings {
  accountFailures: number;
  addressFailures: number;
  windowSeconds: number;
  /** The secret counter keys are hashed with (throttle-keys.ts): the same on every instance of a deployment. */
  keySecret: string;
  /** Logins one process lets wait for a password check besides those running. */
  maxPendingChecks: number;
}

/** Why a login was refused before its password was checked. */
export type RefusalReason = 'account' | 'address' | 'busy';

export type Attempt =
  /** `finish`: a success, a failure (the wrong password, an unknown user), or a check that never finished. */
  | { allowed: true; finish(checked: 'success' | 'failure' | 'unfinished'): Promise<void> }
  | { allowed: false; reason: RefusalReason; retryAfter: number };

/** What a refusal for "too many checks in hand" asks the caller to wait: a check takes a fraction of a second. */
const BUSY_RETRY_SECONDS = 1;
/**
 * A point is given back only while this much of its window is left (a tenth of short windows). A give-back that
 * reached the store after the window ended would start the next window below zero: a free guess an attacker could
 * farm by timing refusals.
 */
const GIVE_BACK_MARGIN_MS = 2_000;

/** One point taken from a counter. */
class Taken {
  private readonly giveBackBefore: number;

  constructor(private readonly limiter: RateLimiterAbstract, private readonly key: string, res: RateLimiterRes) {
    this.giveBackBefore = performance.now() + res.msBeforeNext - Math.min(GIVE_BACK_MARGIN_MS, limiter.duration * 100);
  }

  async giveBack(): Promise<void> {
    if (performance.now() >= this.giveBackBefore) return;
    try {
      const res = await this.limiter.reward(this.key);
      // The counter was deleted meanwhile (`restlayer user unlock`) and the give-back made it again below zero: a free
      // guess per check that was in hand. Taken back at once; only a refusal in that instant could still use it.
      if (res.consumedPoints < 0) await this.limiter.penalty(this.key, -res.consumedPoints);
    } catch {
      // The store is unreachable: the point stays counted until its window ends, which errs on the safe side.
    }
  }
}

/**
 * A point taken, or how long until the counter's window ends when it was already spent. A refused consume has still
 * added its point to the store (rate-limiter-flexible counts first, then compares): that point is given back at once,
 * because a refusal checked no password. Left counted, a burst of right passwords locked its own account: 300 sent at
 * once left some 295 refusals in the counter, and the next right login was refused for the whole window.
 */
async function take(limiter: RateLimiterAbstract, key: string): Promise<Taken | { refusedMs: number }> {
  try {
    return new Taken(limiter, key, await limiter.consume(key));
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    await new Taken(limiter, key, err).giveBack();
    return { refusedMs: err.msBeforeNext };
  }
}

/** Whether the counter would take a point now; an unreachable store answers no (the longer wait is the safe one). */
async function hasRoom(limiter: RateLimiterAbstract, key: string): Promise<boolean> {
  const res = await limiter.get(key).catch(() => undefined);
  return res === undefined ? false : res === null || res.remainingPoints > 0;
}

/**
 * Attempts whose password check is under way, per counter key, in the counters' own store (so every worker and
 * instance sees them). They hold points they give back if the password was right, so a refusal while some are in
 * hand may succeed a moment later: its Retry-After says so instead of the window's end.
 */
class ChecksInHand {
  constructor(private readonly limiter: RateLimiterAbstract) {}

  async enter(key: string): Promise<void> {
    await this.limiter.consume(key).catch(() => undefined);
  }

  async leave(key: string): Promise<void> {
    await this.limiter.reward(key).catch(() => undefined);
  }

  /** Whether any attempt on `key` is being checked; an unreachable store answers no (the longer wait is the safe one). */
  async any(key: string): Promise<boolean> {
    const res = await this.limiter.get(key).catch(() => null);
    return (res?.consumedPoints ?? 0) > 0;
  }
}

/** No real bound: the checks in hand are bounded by each process's CheckGate, this only counts them. */
const UNBOUNDED = 1_000_000_000;

/**
 * Login attempts counted per account and per client address (rate-limiter-flexible). Every attempt takes a point
 * from both counters before its password is checked, in one atomic increment per counter (in memory, on the cluster
 * primary or in Redis), so a burst sent at once cannot all pass a check made before any of them is counted. A success
 * gives its points back; a failure keeps them until the window ends. A process also bounds the logins it has in
 * hand at once (CheckGate).
 */
export class LoginThrottle {
  constructor(
    private readonly byAccount: RateLimiterAbstract,
    private readonly byAddress: RateLimiterAbstract,
    private readonly checking: ChecksInHand,
    private readonly gate: CheckGate,
    private readonly keyOf: ThrottleKeyOf,
  ) {}

  /**
   * Counters named by a keyed hash of the account or address (throttle-keys.ts), under prefixes of their own: keys
   * an earlier version wrote with the typed name in clear (`login-account:…`, `login-address:…`, `login-checking:…`)
   * are never read again and expire within the window.
   */
  private static create(s: ThrottleSettings, make: (keyPrefix: string, points: number) => RateLimiterAbstract): LoginThrottle {
    return new LoginThrottle(
      make('login-throttle:account', s.accountFailures),
      make('login-throttle:address', s.addressFailures),
      new ChecksInHand(make('login-throttle:checking', UNBOUNDED)),
      new CheckGate(CHECKS_AT_ONCE, s.maxPendingChecks),
      throttleKeys(s.keySecret),
    );
  }

  /** One process: counters in memory. */
  static inMemory(s: ThrottleSettings): LoginThrottle {
    return LoginThrottle.create(s, (keyPrefix, points) => new RateLimiterMemory({ keyPrefix, points, duration: s.windowSeconds }));
  }

  /** Workers of one `serve --workers N`: counters kept by the primary (which runs RateLimiterClusterMaster). */
  static inCluster(s: ThrottleSettings): LoginThrottle {
    return LoginThrottle.create(s, (keyPrefix, points) => new RateLimiterCluster({ keyPrefix, points, duration: s.windowSeconds, timeoutMs: 2_000 }));
  }

  /**
   * Every instance: counters in Redis. @internal (not in the package's declarations: they would name ioredis, an
   * optional peer a project without Redis does not have).
   */
  static inRedis(s: ThrottleSettings, client: Redis): LoginThrottle {
    return LoginThrottle.create(s, (keyPrefix, points) => new RateLimiterRedis({ storeClient: client, keyPrefix, points, duration: s.windowSeconds }));
  }

  /**
   * Forgets the account's failed logins (`restlayer user unlock`), where the counters live: in Redis for every
   * instance; in memory only for this process. Answers whether any were counted (a success leaves an empty
   * counter behind, which is no lock). The address counters stay.
   */
  unlock(userName: string): Promise<boolean> {
    return LoginThrottle.forget(this.byAccount, this.keyOf('account', userKey(userName)));
  }

  /**
   * Forgets the failed logins counted against a client address (`restlayer user unlock-address`): everyone behind
   * it (an office behind one NAT or proxy) may log in again. The accounts' counters stay.
   */
  unlockAddress(address: string): Promise<boolean> {
    return LoginThrottle.forget(this.byAddress, this.keyOf('address', canonicalAddress(address)));
  }

  private static async forget(counter: RateLimiterAbstract, key: string): Promise<boolean> {
    const counted = (await counter.get(key))?.consumedPoints ?? 0;
    await counter.delete(key);
    return counted > 0;
  }

  /**
   * Reserves one attempt for the account and the address. When allowed, the caller checks the password and then
   * calls `finish` exactly once. A refusal holds nothing: a point taken from one counter while the other refused is
   * given back, since no password was tried. Rejects when the counters' store cannot be reached.
   */
  async reserve(userName: string, address: string): Promise<Attempt> {
    // A refusal here takes no point anywhere: it checked no password, so it must not close the account or address.
    if (!this.gate.tryEnter()) return { allowed: false, reason: 'busy', retryAfter: BUSY_RETRY_SECONDS };
    const accountKey = this.keyOf('account', userKey(userName));
    const addressKey = this.keyOf('address', canonicalAddress(address));
    // One key per counter in the checks-in-hand store (the hashes of an account and an address never meet).
    const checkingKeys = [`account:${accountKey}`, `address:${addressKey}`];
    // In hand before the points are taken: a refusal that finds them taken then finds this entry too. Entered after,
    // a refusal between the two saw the points spent and no check under way, and announced the window's end.
    await Promise.all(checkingKeys.map((k) => this.checking.enter(k)));
    const [account, client] = await Promise.allSettled([take(this.byAccount, accountKey), take(this.byAddress, addressKey)]);
    const taken = [account, client].flatMap((r) => (r.status === 'fulfilled' && r.value instanceof Taken ? [r.value] : []));
    if (taken.length < 2) {
      this.gate.leave();
      await Promise.all(taken.map((t) => t.giveBack()));
      // Out of the checks in hand before asking who is in them: its own entry is no check under way.
      await Promise.all(checkingKeys.map((k) => this.checking.leave(k)));
      if (account.status === 'rejected') throw account.reason;
      if (client.status === 'rejected') throw client.reason;
      const refusals = await Promise.all(([
        ['account', account.value, checkingKeys[0], this.byAccount, accountKey],
        ['address', client.value, checkingKeys[1], this.byAddress, addressKey],
      ] as const)
        .flatMap(([reason, r, key, counter, counterKey]) => (r instanceof Taken ? [] : [{ reason, ms: r.refusedMs, key, counter, counterKey }]))
        // A counter full of attempts still being checked may free up as soon as they end (right passwords give
        // their points back): the retry can succeed after about one check, not only at the window's end. Those
        // checks may also have ended already, between the refused take and this look: then the counter has room again.
        .map(async ({ counter, counterKey, ...r }) => ((await this.checking.any(r.key)) || (await hasRoom(counter, counterKey))
          ? { ...r, ms: Math.min(r.ms, BUSY_RETRY_SECONDS * 1000) } : r)));
      // Named after the counter that keeps the caller out longest: that is the wait Retry-After announces.
      refusals.sort((a, b) => b.ms - a.ms);
      return { allowed: false, reason: refusals[0].reason, retryAfter: Math.max(1, Math.ceil(refusals[0].ms / 1000)) };
    }
    let finished = false;
    return {
      allowed: true,
      finish: async (checked) => {
        if (finished) return;
        finished = true;
        this.gate.leave();
        // A success is no guess to count, for the account nor for the address (many users behind one office
        // address log in all day); nor is a check that never finished (no password was tried). Either returns only
        // its own points, so earlier failures keep counting. They go back before it leaves the checks in hand, so a
        // refusal never sees neither.
        if (checked !== 'failure') await Promise.all(taken.map((t) => t.giveBack()));
        await Promise.all(checkingKeys.map((k) => this.checking.leave(k)));
      },
    };
  }
}
