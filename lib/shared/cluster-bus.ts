import cluster from 'node:cluster';
import type { InvalidationBus } from '../lookup/lookup-cache.js';

const KIND = 'restlayer:lookup-flush';

interface FlushMessage {
  kind: typeof KIND;
  type: string | null;
}

const isFlush = (m: unknown): m is FlushMessage => typeof m === 'object' && m !== null && (m as FlushMessage).kind === KIND;

/** Without Redis, workers of one `serve --workers N` tell each other through their primary. */
export function clusterWorkerBus(): InvalidationBus {
  const listeners: ((type: string | null) => void)[] = [];
  process.on('message', (m: unknown) => {
    if (isFlush(m)) for (const listener of listeners) listener(m.type);
  });
  return {
    async publish(type) {
      process.send?.({ kind: KIND, type } satisfies FlushMessage);
    },
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}

/** In the primary: relays a worker's flush to every other worker. */
export function relayClusterFlushes(): void {
  cluster.on('message', (from, m: unknown) => {
    if (!isFlush(m)) return;
    for (const worker of Object.values(cluster.workers ?? {})) if (worker && worker !== from) worker.send(m);
  });
}
