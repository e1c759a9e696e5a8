/**
 * Helpers for an application's own tests (`restlayer/testing`): a real server of the application on an ephemeral
 * port, over a store of its own (SQLite, or PostgreSQL with Redis), with tokens it accepts; assertions on the
 * envelope; and the drift check of a client proxy against the routes it calls.
 */
export {
  type CallInit, type Envelope, type JsonObject, TEST_POOL_SIZE, type TestReply, type TestServer, type TestServerOptions, startTestServer,
} from './test-server.js';
export {
  type StoreCheck, type TestDatabase, type TestProvider, beforeEachStore, createTestDatabase, dropRedisKeys, dropTestDatabases, endTestRun, pgAdminUrl, postgresProblem, redisPrefix,
  redisProblem, redisUrl, sqliteTemplate, startTestRun, testProvider, testRedis,
} from './test-stores.js';
export { EVERY_STORE, type SuiteContext, describeOneStore, describeStores, requireStoreDeclarations, storeName } from './stores.js';
export { type Message, type QueryValue, expectError, expectErrors, expectOk, qs } from './assertions.js';
export { type ProxyUnderTest, driftProblems, methodsOf, proxyDrift } from './drift.js';
export { resourceDrift } from './resource-drift.js';
export { type CallerAccess, asCaller } from './as-caller.js';
export { queryPlan } from './query-plan.js';
export { applicationRoutes } from '../routing/application-routes.js';
export type { LoadedRoute } from '../routing/load-routes.js';
export { type ResourceSuiteOptions, type ScopeFixture } from './resource-suite-context.js';
export { resourceSuite } from './resource-suite.js';
