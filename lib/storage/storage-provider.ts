import type { AppConfig } from '../config/schema.js';
import type { FaultLog } from './sqlite-faults.js';
import type { Storage } from './storage.js';

/** What an opener gets besides the configuration: where infrastructure faults are told. */
export interface ProviderOptions {
  /** Infrastructure faults met while serving (a store unreachable, a connection lost), once per episode. */
  warn: (text: string) => void;
  /** Where storage faults of the file itself are logged (the server's logger). */
  faultLog?: FaultLog;
}

/**
 * One value of Storage:Provider: how it opens from the configuration (the store it makes carries its dialect,
 * lib/storage/dialects/) and, optionally, the first query made alone at startup so that a store that cannot be
 * reached is told as the operator's to fix. ./providers.ts lists them.
 */
export interface StorageProvider {
  open(config: AppConfig, options: ProviderOptions): Storage;
  reach?(storage: Storage, config: AppConfig): Promise<void>;
}
