import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { InvalidationBus } from '../lookup/lookup-cache.js';

/** How often this process publishes a heartbeat to its own subscriber. */
const HEARTBEAT_MS = 500;
/**
 * How long a heartbeat may go unheard before a subscriber that counts itself connected is replaced: well past a round
 * trip. (A subscriber already reconnecting is left to it: Redis is unreachable, which readiness reports anyway.)
 */
const UNHEARD_MS = 1_500;

export interface RedisBusOptions {
  /** Where the subscriber's silences and recoveries are told (warn). */
  warn?: (text: string) => void;
}

/** Lookup flushes over Redis pub/sub, and whether this process still hears them. */
export interface RedisBus extends InvalidationBus {
  /** Why flushes may not reach this process now (its subscriber hears nothing), or undefined when they do. */
  problem(): string | undefined;
  close(): void;
}

/**
 * Lookup flushes over Redis pub/sub: every instance subscribed to the channel drops the table.
 *
 * A subscriber connection sends nothing once subscribed, so a flow that dies silently (a NAT or firewall forgets it,
 * Redis freezes) is never noticed by a command timing out: after Redis connections froze, the command connections were
 * replaced within 2 s but the subscribers stayed dead for good, and flushes never reached their processes. So each
 * process publishes a heartbeat to a channel of its own every HEARTBEAT_MS and listens for it on the subscriber: none
 * heard for UNHEARD_MS means the subscriber is silent; it is reconnected, readiness answers 503 until it hears again,
 * and once it is subscribed again every table is dropped, since any flush of the silence was lost.
 */
export function redisBus(publisher: Redis, subscriber: Redis, channel: string, options: RedisBusOptions = {}): RedisBus {
  const listeners: ((type: string | null) => void)[] = [];
  const heartbeat = `${channel}:heartbeat:${randomBytes(9).toString('base64url')}`;
  const flush = (type: string | null) => {
    for (const listener of listeners) listener(type);
  };
  /** When the oldest heartbeat not heard since was sent; undefined: every one sent was heard. */
  let unheardSince: number | undefined;
  let silent = false;
  let subscribedBefore = false;
  /**
   * When the subscriber was last replaced or subscribed: a new connection or subscription gets UNHEARD_MS to hear before
   * it is replaced (again).
   */
  let freshSince = 0;

  // The client has no offline queue, so subscribing must wait for a connection; doing it on every 'ready' also covers
  // reconnects (after Redis restarts, or after a silent subscriber was replaced).
  const subscribe = () => {
    subscriber.subscribe(channel, heartbeat).then(() => {
      freshSince = Date.now();
      // Flushes published while this subscriber was away reached no one here: drop everything, once it listens again.
      if (subscribedBefore) flush(null);
      subscribedBefore = true;
    }, () => {
      // Not subscribed: no heartbeat will be heard, and the check below replaces the connection.
    });
  };
  subscriber.on('ready', subscribe);
  if (subscriber.status === 'ready') subscribe();
  subscriber.on('message', (ch: string, payload: string) => {
    if (ch === heartbeat) {
      unheardSince = undefined;
      if (silent) {
        silent = false;
        options.warn?.('Redis subscriber hears again: lookup flushes reach this process (every table was dropped, in case one was missed).');
      }
      return;
    }
    if (ch === channel) flush(payload === '*' ? null : payload);
  });

  /** Replaces a subscriber that has heard no heartbeat for UNHEARD_MS though it counts itself connected. */
  const check = () => {
    if (unheardSince === undefined || Date.now() - Math.max(unheardSince, freshSince) <= UNHEARD_MS || subscriber.status !== 'ready') return;
    if (!silent) {
      silent = true;
      options.warn?.(`Redis subscriber silent: no heartbeat heard for ${Date.now() - unheardSince} ms though its connection looks open; `
        + 'lookup flushes from other processes would be missed. Reconnecting it; readiness answers 503 until it hears again. '
        + 'Check the network between this host and Redis (a NAT or firewall dropping flows) and that Redis answers.');
    }
    // A fresh connection: the dead flow never recovers by itself. Its 'ready' subscribes again.
    freshSince = Date.now();
    subscriber.disconnect(true);
  };
  const beat = () => {
    // Counted from the publish sent, not answered: the command connection may be frozen as well, and waiting for its
    // timeout (Cache:Redis:CommandTimeoutMilliseconds) would delay the subscriber's replacement by as much.
    unheardSince ??= Date.now();
    check();
    publisher.publish(heartbeat, '').catch(() => {
      // Not taken (Redis unreachable): readiness reports that by itself, and the subscriber reconnects on its own.
    });
  };
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();

  return {
    async publish(type) {
      await publisher.publish(channel, type ?? '*');
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    problem() {
      if (unheardSince === undefined || Date.now() - unheardSince <= UNHEARD_MS) return undefined;
      return `the lookup-flush subscriber has heard nothing for ${Date.now() - unheardSince} ms`;
    },
    close() {
      clearInterval(timer);
    },
  };
}
