import type { AppConfig } from '../config/schema.js';
import { migrate } from './migrations.js';
import { seedSampleData } from './sample-data.js';
import { openSqlite } from './sqlite.js';
import type { Storage } from './storage.js';

/** Opens the configured store and brings it up to date: schema, reference data and, when empty, sample data. */
export async function openStorage(config: AppConfig, log: (text: string) => void = () => {}): Promise<Storage> {
  if (config.Storage.Provider !== 'sqlite') {
    throw new Error(`Storage:Provider '${config.Storage.Provider}' is not available in this build.`);
  }
  const storage = openSqlite(config.Storage.Sqlite.Path);
  try {
    const applied = await migrate(storage);
    if (applied.length) log(`database schema updated: ${applied.join(', ')}`);
    if (config.Storage.SampleData) {
      const orders = await seedSampleData(storage);
      if (orders) log(`empty database: loaded ${orders} sample sales orders`);
    }
    return storage;
  } catch (err) {
    await storage.close();
    throw err;
  }
}
