import { type TestDatabase, createTestDatabase as createDatabase } from 'restlayer/testing';
import { application } from '../../services/index.js';

// The stores of this project's test runs are restlayer/testing's: one place picks them, names and drops their databases.
export {
  dropRedisKeys, dropTestDatabases, pgAdminUrl, postgresProblem, redisPrefix, redisProblem, redisUrl, testProvider, testRedis,
} from 'restlayer/testing';

/** A new PostgreSQL database of this application (sample data when `seeded`), for a test that runs its own server. */
export const createTestDatabase = (seeded: boolean): Promise<TestDatabase> => createDatabase(application.modules, seeded);
