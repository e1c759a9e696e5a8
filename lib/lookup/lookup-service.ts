import type { Output } from '../envelope/output.js';
import type { CachedTable } from './lookup-cache.js';

/** Lookup tables for dropdowns and code validation, served from the process-wide cache. */
export interface ILookupService {
  /** The table and its ETag; `LookupTable_NotFound` when no loader knows the type. */
  read(type: string): Promise<Output<CachedTable>>;
  /** Drops the table from the cache of every instance; it reloads on next use. */
  remove(type: string): Promise<Output>;
  /** Drops every table from the cache of every instance. */
  removeAll(): Promise<Output>;
}
