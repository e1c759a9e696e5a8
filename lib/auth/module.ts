import type { ServiceModule } from '../modules.js';
import { authMigrations } from './migrations.js';

/** The layer's own module: its tables come before any application module's. */
export const authModule: ServiceModule = { name: 'auth', migrations: authMigrations };
