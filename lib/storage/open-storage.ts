import type { AppConfig } from '../config/schema.js';
import { createListChangeTable } from './list-changes.js';
import { type SchemaModule, migrateModules } from './migrations.js';
import { storageProvider } from './providers.js';
import { turnTenancyOff, turnTenancyOn } from './tenant-adoption.js';
import type { Storage } from './storage.js';
import type { ProviderOptions } from './storage-provider.js';

/** `warn` defaults to `log`. */
export interface OpenOptions extends Partial<ProviderOptions> {
  log?: (text: string) => void;
  /** Bring the schema up to date and seed an empty database (default). Workers skip it: their primary did it. */
  prepare?: boolean;
  /**
   * Where what turning tenancy on did is said (lib/storage/tenant-adoption.ts); default `log`. A CLI command may be
   * the first process to start with tenancy on: it says so on stderr, though it logs nothing else.
   */
  tenancyLog?: (text: string) => void;
  /**
   * The process serves requests with this configuration (a server, or the primary that prepares the store for its
   * workers). Only such a start with tenancy off makes the indexes led by the tenant in place as they were
   * (turnTenancyOff): a CLI command may run in an environment without the server's `Tenancy:Enabled`, and would
   * otherwise rebuild them under the servers that filter by tenant.
   */
  serving?: boolean;
}

/** Opens the configured store and, unless told otherwise, brings every module up to date: schema, then sample data. */
export async function openStorage(config: AppConfig, modules: readonly SchemaModule[], options: OpenOptions = {}): Promise<Storage> {
  const log = options.log ?? (() => {});
  const provider = storageProvider(config);
  const storage = provider.open(config, { warn: options.warn ?? log, faultLog: options.faultLog });
  if (options.prepare === false) return storage;
  try {
    await provider.reach?.(storage, config);
    await storage.exclusive(async (db) => {
      const { applied, changed } = await migrateModules(db, storage.dialect, modules);
      if (applied.length) log(`database schema updated: ${applied.join(', ')}`);
      // Read by every record's ETag that counts a joined table's changes, tracked or not (lib/storage/list-changes.ts).
      await createListChangeTable(db);
      const warn = options.warn ?? log;
      for (const name of changed) {
        warn(`migration ${name} has changed since this database ran it: the database keeps what the text it ran made, and a migration `
          + 'never runs twice. Put the change in a new migration; or, for a development database, start it over (restlayer db reset)');
      }
      if (config.Storage.SampleData) {
        // Seeds run on the connection that holds the setup lock, like the migrations before them.
        const locked: Storage = { ...storage, db };
        for (const module of modules) {
          const seeded = await module.seed?.(locked);
          if (seeded) log(`empty database: ${seeded}`);
        }
      }
      const tenancy = config.Tenancy.Enabled ? await turnTenancyOn(db, storage.dialect, modules, config.Tenancy.DefaultTenant)
        : options.serving ? await turnTenancyOff(db, storage.dialect, modules) : [];
      for (const line of tenancy) (options.tenancyLog ?? log)(line);
    });
    return storage;
  } catch (err) {
    await storage.close();
    throw err;
  }
}

