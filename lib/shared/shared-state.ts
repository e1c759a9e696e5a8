import cluster from 'node:cluster';
import type { Redis } from 'ioredis';
import type { ICookieSessionStore } from '../auth/cookie-session-store.js';
import { RedisCookieSessionStore } from '../auth/redis-cookie-session-store.js';
import { LoginThrottle, type ThrottleSettings } from '../auth/login-throttle.js';
import { UsedTokenIds } from '../auth/used-token-ids.js';
import type { AppConfig } from '../config/schema.js';
import { type InvalidationBus, localBus } from '../lookup/lookup-cache.js';
import { clusterWorkerBus } from './cluster-bus.js';
import { redisBus } from './redis-bus.js';
import { faultEpisodes } from '../storage/fault-episodes.js';
import { connectRedis, pingRedis } from './redis.js';
import { StoreUnavailableError } from '../storage/store-faults.js';

/**
 * What instances of one deployment must share: lookup flushes, login throttling, used operator tokens and (with
 * Redis) cookie sessions.
 * With `Cache:Redis:Url` Redis holds them for every instance; without it, workers of one `serve --workers N`
 * share through their primary, and a single process keeps them in memory.
 */
export interface SharedState {
  bus: InvalidationBus;
  throttle: LoginThrottle;
  /** The ids of operator tokens already used: each is accepted once, by any instance or worker. */
  usedTokenIds: UsedTokenIds;
  /** Where cookie sessions live when not in the database. */
  cookieSessions?: ICookieSessionStore;
  /** Rejects while a shared store is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function throttleSettings(config: AppConfig): ThrottleSettings {
  const t = config.Authentication.Throttle;
  // A secret every instance of the deployment has, as list cursors use (lib/storage/list-limits.ts): variant A's
  // newest cookie key, variant B's signing key. Rotating it starts the counters afresh (the old keys expire).
  const keySecret = config.Authentication.Variant === 'A' ? config.Authentication.Cookie.Keys[0] : config.AuthConfig.SigningKey;
  return {
    accountFailures: t.AccountFailures, addressFailures: t.AddressFailures, windowSeconds: t.WindowSeconds, maxPendingChecks: t.MaxPendingChecks,
    keySecret,
  };
}

export function openSharedState(config: AppConfig, log: (text: string) => void = () => {}): SharedState {
  const settings = throttleSettings(config);
  const { Url: url, KeyPrefix: prefix } = config.Cache.Redis;
  if (!url) {
    const worker = cluster.isWorker;
    return {
      bus: worker ? clusterWorkerBus() : localBus,
      throttle: worker ? LoginThrottle.inCluster(settings) : LoginThrottle.inMemory(settings),
      usedTokenIds: worker ? UsedTokenIds.inCluster() : UsedTokenIds.inMemory(),
      ping: async () => {},
      close: async () => {},
    };
  }
  // ioredis reports every failed reconnect and every failed command: one line per outage keeps the log readable.
  const episodes = faultEpisodes('Redis', 'that Redis runs and answers, and that the network to it passes traffic (Cache:Redis:Url)', log);
  const bounds = {
    url, prefix, commandTimeoutMs: config.Cache.Redis.CommandTimeoutMilliseconds,
    onError: (err: Error) => episodes.fault(err.message),
    onFault: (err: Error) => episodes.fault(err.message),
    onAnswer: () => episodes.answered(),
  };
  const client: Redis = connectRedis(bounds);
  const subscriber: Redis = connectRedis(bounds);
  const bus = redisBus(client, subscriber, `${prefix}lookup-flush`, { warn: log });
  return {
    bus,
    throttle: LoginThrottle.inRedis(settings, client),
    usedTokenIds: UsedTokenIds.inRedis(client),
    cookieSessions: new RedisCookieSessionStore(client),
    async ping() {
      await pingRedis(client);
      // Redis answers, but flushes would not reach this process: not ready until its subscriber hears again.
      const problem = bus.problem();
      if (problem) throw new StoreUnavailableError('Redis', problem);
    },
    async close() {
      bus.close();
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
