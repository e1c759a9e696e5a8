import type { AppConfig } from '../config/schema.js';
import { migrate } from './migrations.js';
import { openPostgres } from './postgres.js';
import { seedSampleData } from './sample-data.js';
import { openSqlite } from './sqlite.js';
import type { Storage } from './storage.js';

export interface OpenOptions {
  log?: (text: string) => void;
  /** Bring the schema up to date and seed an empty database (default). Workers skip it: their primary did it. */
  prepare?: boolean;
}

/** Opens the configured store and, unless told otherwise, brings it up to date: schema, reference data, sample data. */
export async function openStorage(config: AppConfig, options: OpenOptions = {}): Promise<Storage> {
  const log = options.log ?? (() => {});
  const storage = config.Storage.Provider === 'postgres'
    ? openPostgres(config.Storage.Postgres.Url, (err) => log(`PostgreSQL connection lost: ${err.message}`))
    : openSqlite(config.Storage.Sqlite.Path);
  if (options.prepare === false) return storage;
  try {
    await storage.exclusive(async (db) => {
      const applied = await migrate(db, storage.values);
      if (applied.length) log(`database schema updated: ${applied.join(', ')}`);
      if (config.Storage.SampleData) {
        const orders = await seedSampleData(db, storage.values);
        if (orders) log(`empty database: loaded ${orders} sample sales orders`);
      }
    });
    return storage;
  } catch (err) {
    await storage.close();
    throw err;
  }
}
