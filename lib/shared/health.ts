import type { Storage } from '../storage/storage.js';
import type { SharedState } from './shared-state.js';

/** Whether the stores the server needs answer (GET /health/ready). */
export interface IHealthService {
  /** The stores that do not answer, named for a person ("the database", "Redis"); empty when all do. */
  unreachable(): Promise<string[]>;
}

export function storesHealth(storage: Pick<Storage, 'ping'>, shared: Pick<SharedState, 'ping'>): IHealthService {
  return {
    async unreachable() {
      const [database, cache] = await Promise.allSettled([storage.ping(), shared.ping()]);
      return [database.status === 'rejected' && 'the database', cache.status === 'rejected' && 'Redis'].filter((s): s is string => !!s);
    },
  };
}
