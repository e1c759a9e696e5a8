import type { AppConfig } from '../config/schema.js';
import { postgresProvider } from './postgres.js';
import { sqliteProvider } from './sqlite.js';
import type { StorageProvider } from './storage-provider.js';

/**
 * Every value of Storage:Provider and how it opens: the one place that tells providers apart by name. A new provider
 * is its opener with its dialect (lib/storage/dialects/dialect.ts says what that holds), one line here, and its name
 * and keys in the configuration schema (lib/config/schema.ts, `storageProviders`).
 */
const providers: { readonly [P in AppConfig['Storage']['Provider']]: StorageProvider } = {
  sqlite: sqliteProvider,
  postgres: postgresProvider,
};

/** The configured provider. */
export const storageProvider = (config: AppConfig): StorageProvider => providers[config.Storage.Provider];
