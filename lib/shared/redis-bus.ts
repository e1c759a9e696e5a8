import type { Redis } from 'ioredis';
import type { InvalidationBus } from '../lookup/lookup-cache.js';

/** Lookup flushes over Redis pub/sub: every instance subscribed to the channel drops the table. */
export function redisBus(publisher: Redis, subscriber: Redis, channel: string): InvalidationBus {
  const listeners: ((type: string | null) => void)[] = [];
  // The client has no offline queue, so subscribing must wait for a connection; doing it on every 'ready'
  // also covers reconnects after Redis restarts.
  const subscribe = () => void subscriber.subscribe(channel).catch(() => {});
  subscriber.on('ready', subscribe);
  if (subscriber.status === 'ready') subscribe();
  subscriber.on('message', (ch: string, payload: string) => {
    if (ch !== channel) return;
    const type = payload === '*' ? null : payload;
    for (const listener of listeners) listener(type);
  });
  return {
    async publish(type) {
      await publisher.publish(channel, type ?? '*');
    },
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}
