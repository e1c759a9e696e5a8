import type { Redis } from 'ioredis';
import type { InvalidationBus } from '../lookup/lookup-cache.js';

/** Lookup flushes over Redis pub/sub: every instance subscribed to the channel drops the table. */
export function redisBus(publisher: Redis, subscriber: Redis, channel: string): InvalidationBus {
  const listeners: ((type: string | null) => void)[] = [];
  void subscriber.subscribe(channel).catch(() => {
    /* retried on reconnect: ioredis re-subscribes */
  });
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
