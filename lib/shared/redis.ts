import type * as ioredis from 'ioredis';
import type { Command, Redis, RedisOptions as ClientOptions } from 'ioredis';
import { requireOptional } from '../optional-package.js';
import { StoreUnavailableError } from '../storage/store-faults.js';

export interface RedisOptions {
  url: string;
  /** Prefix of every key and channel, so several deployments (or test runs) can share one Redis. */
  prefix: string;
  onError?: (err: Error) => void;
  /** Bound of every command (Cache:Redis:CommandTimeoutMilliseconds); default 2 s. */
  commandTimeoutMs?: number;
  /** Every command that failed for want of Redis (not Redis's own error answer); the caller logs episodes from it. */
  onFault?: (err: StoreUnavailableError) => void;
  /** A command answered: an episode of faults is over. */
  onAnswer?: () => void;
}

type IoRedis = typeof ioredis;
type BoundedRedisClass = new (url: string, options: ClientOptions, bounds: Required<Pick<RedisOptions, 'commandTimeoutMs'>> & RedisOptions) => Redis;
let driver: BoundedRedisClass | undefined;

/**
 * The Redis client (the optional peer dependency `ioredis`), loaded when Cache:Redis:Url is first used: a project
 * without Redis never installs or loads it.
 */
function redisDriver(): BoundedRedisClass {
  driver ??= boundedRedis(requireOptional<IoRedis>('ioredis', 'Cache:Redis:Url'));
  return driver;
}

/**
 * ioredis with a bound on every command and faults of its own class: a command Redis does not answer in time (it
 * accepts but never replies, or the flow froze) fails as StoreUnavailableError and the connection is replaced, since a
 * frozen flow never recovers by itself; a command that fails for want of a connection fails the same way. Redis's
 * own error replies (ReplyError) pass unchanged.
 */
function boundedRedis({ Redis: Client, ReplyError }: IoRedis): BoundedRedisClass {
  /** Redis's own error answer (WRONGTYPE, NOSCRIPT, ...): the server is there and answered. */
  const isReplyError = (err: Error): boolean => err instanceof (ReplyError as new () => object);

  class BoundedRedis extends Client {
    constructor(url: string, options: ClientOptions, private readonly bounds: Required<Pick<RedisOptions, 'commandTimeoutMs'>> & RedisOptions) {
      super(url, options);
    }

    override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
      // ioredis may send its first commands (the ready check) before this constructor has set the bounds.
      if (!this.bounds) return super.sendCommand(command, stream);
      const { resolve, reject } = command;
      let settled = false;
      const timer = setTimeout(() => {
        command.reject(Object.assign(new Error(`no answer within ${this.bounds.commandTimeoutMs} ms`), { timedOut: true }));
        // The flow may be dead for good (a NAT dropped it, Redis froze): a fresh connection is the way back.
        this.disconnect(true);
      }, this.bounds.commandTimeoutMs);
      timer.unref();
      command.resolve = (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.bounds.onAnswer?.();
        resolve(value);
      };
      command.reject = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (isReplyError(err)) {
          this.bounds.onAnswer?.();
          return reject(err);
        }
        const fault = new StoreUnavailableError('Redis', `${command.name} failed (${err.message})`, { cause: err });
        this.bounds.onFault?.(fault);
        reject(fault);
      };
      return super.sendCommand(command, stream);
    }
  }
  return BoundedRedis;
}

/**
 * A Redis client that fails fast while the server is unreachable (no offline queue, one retry), so requests
 * answer 503 instead of hanging; it keeps reconnecting in the background and recovers by itself.
 */
export function connectRedis(options: RedisOptions): Redis {
  const BoundedRedis = redisDriver();
  const client = new BoundedRedis(options.url, {
    keyPrefix: options.prefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 3_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
    lazyConnect: false,
    keepAlive: 10_000,
    // A command that timed out was answered (503) already: sent again after a reconnect it would count twice
    // (a login attempt the client was told failed would still take its throttle points).
    autoResendUnfulfilledCommands: false,
    // A subscriber's channels are subscribed again on each 'ready' by its owner (redis-bus.ts), which handles a
    // failure. ioredis's own resubscribe leaves its promise unhandled: when that SUBSCRIBE timed out (a flow that froze
    // again) the rejection ended the process.
    autoResubscribe: false,
  }, { ...options, commandTimeoutMs: options.commandTimeoutMs ?? 2_000 });
  client.on('error', (err: Error) => options.onError?.(err));
  return client;
}

/** Resolves when Redis answers PING; a connection still being made gets `waitMs` to become ready. */
export async function pingRedis(client: Redis, waitMs = 1_000): Promise<void> {
  if (client.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.off('ready', onReady);
        reject(new StoreUnavailableError('Redis', `not connected (${client.status})`));
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
