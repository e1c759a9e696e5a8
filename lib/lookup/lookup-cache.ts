import { strongETag } from '../etag.js';
import type { LookupLoader, LookupTable } from './lookup-table.js';

export interface CachedTable {
  table: LookupTable;
  /** Strong validator of the table's content, for ETag / If-None-Match. */
  etag: string;
}

/** Tells other instances to drop a table; the in-process default has nobody to tell. */
export interface InvalidationBus {
  publish(type: string | null): Promise<void>;
  subscribe(onInvalidate: (type: string | null) => void): void;
}

export const localBus: InvalidationBus = { publish: async () => {}, subscribe: () => {} };

/**
 * The process-wide lookup cache: a table loads on first use, concurrent first requests share one load, a failed
 * load is forgotten so the next request retries, and `remove` drops a table here and on every instance.
 */
export class LookupCache {
  private readonly loaders = new Map<string, { type: string; load: LookupLoader }>();
  private readonly tables = new Map<string, Promise<CachedTable>>();

  /** `onLoad` hears of every load a request starts (metrics), by the table's canonical name. */
  constructor(private readonly bus: InvalidationBus = localBus, private readonly onLoad?: (type: string) => void) {
    bus.subscribe((type) => this.drop(type));
  }

  register(type: string, load: LookupLoader): this {
    this.loaders.set(type.toLowerCase(), { type, load });
    return this;
  }

  /** The canonical name of a registered type (names match case-insensitively), or undefined. */
  typeOf(type: string): string | undefined {
    return this.loaders.get(type.toLowerCase())?.type;
  }

  get(type: string): Promise<CachedTable> | undefined {
    const key = type.toLowerCase();
    const loader = this.loaders.get(key);
    if (!loader) return undefined;
    let pending = this.tables.get(key);
    if (!pending) {
      this.onLoad?.(loader.type);
      pending = loader.load().then((table) => ({ table, etag: strongETag(JSON.stringify(table)) }));
      this.tables.set(key, pending);
      pending.catch(() => {
        if (this.tables.get(key) === pending) this.tables.delete(key);
      });
    }
    return pending;
  }

  /** Drops one table (or all, with null) here and on every instance sharing the bus. */
  async remove(type: string | null): Promise<void> {
    this.drop(type);
    await this.bus.publish(type === null ? null : type.toLowerCase());
  }

  private drop(type: string | null) {
    if (type === null) this.tables.clear();
    else this.tables.delete(type.toLowerCase());
  }
}
