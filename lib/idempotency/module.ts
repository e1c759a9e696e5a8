import type { ServiceModule } from '../modules.js';
import { idempotencyMigrations } from './migrations.js';

/** The layer's Idempotency-Key table, in the application's own database so every worker and instance shares it. */
export const idempotencyModule: ServiceModule = { name: 'idempotency', migrations: idempotencyMigrations };
