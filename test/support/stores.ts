import { requireStoreDeclarations } from 'restlayer/testing';

// Where each suite runs (restlayer/testing's declarations): every suite of this project that makes a store says so.
export { describeOneStore, describeStores } from 'restlayer/testing';
// The run's groups: which suites keep apart from the parallel workers (test/support/run-groups.ts).
export { apart, serial } from './run-groups.js';
requireStoreDeclarations();

/**
 * Why a suite runs on one store, for the suites that do (`describeOneStore(title, WHY_ONE_STORE.cli, fn)`): the reasons
 * in one place, where a reviewer sees which suites stay off PostgreSQL and whether each reason still holds.
 */
export const WHY_ONE_STORE = {
  faults: 'injects faults into one store\'s files or connections, and makes the stores it needs itself',
  cli: 'the CLI\'s arguments, output and exit codes are the same on every store; the user and token services it runs are tested on both (test/auth, test/cli/user-attributes)',
  developmentKeys: 'development keys are kept beside the SQLite file of a development setup; where they must also work with PostgreSQL the test makes that database itself',
  openapi: 'the document is built from the routes and the message catalogue, not from the store',
  operations: 'metrics, logs and traces are the same on every store; the PostgreSQL spans are tested with a database the test makes itself',
  packed: 'packs restlayer into a dependent project, whose generated tests it runs on both stores itself',
  testingPackage: 'tests restlayer/testing itself, which it asks for each store explicitly',
  platform: 'serving, headers, health and the route table do not depend on the store beyond what test/core and test/scale/readiness cover on both',
  publicImports: 'checks the imports of a project\'s tests; the server it starts is incidental',
  scaffold: 'the generated services\' own tests run on both stores in test/package/packed.test.ts',
  scale: 'picks its stores itself (SQLite files, a PostgreSQL deployment of several instances) or measures SQLite\'s own reader processes',
  smoke: 'a first look at the sample server; every route it calls is tested on both stores elsewhere',
  web: 'the browser app\'s screens; the routes they call are tested on both stores (test/core, test/sales-order, test/access, test/web/lines and access)',
  http: 'headers, log lines and message bounds of the HTTP layer, the same on every store',
  idempotencyWorkers: '--workers processes over one SQLite file; the key store itself runs on both stores in idempotency-key.test.ts',
  resourceSuite: 'runs resourceSuite in a mocha of its own over a declaration the server does not serve, to see it fail; the suite itself runs on both stores in test/testing/resource-suite.test.ts',
  redisKeys: 'reads what the throttle writes to Redis, which it asks for itself; the database is not involved',
} as const;
