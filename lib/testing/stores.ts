import { beforeEachStore, testProvider, testRedis } from './test-stores.js';

/**
 * On which stores a mocha suite runs. A project's tests run on SQLite, and again on PostgreSQL with Redis
 * (`RESTLAYER_TEST_STORAGE=postgres RESTLAYER_TEST_REDIS=true mocha --grep @stores`) for the suites declared with
 * `describeStores`; `describeOneStore` keeps a suite to the SQLite run and says why. With
 * `requireStoreDeclarations()` in a file the run requires, a suite that makes a store (a test server, a test
 * database) without either declaration fails at its first server, naming the fix: no test runs on one store by
 * accident.
 */

/** The tag of suites that run on every store: the PostgreSQL run selects them with `--grep @stores`. */
export const EVERY_STORE = '@stores';

/**
 * What mocha hands a suite's body as `this` (its Suite), as much of it as suites use; declared here so that the
 * package's types need no @types/mocha (the functions below call mocha's globals, which a mocha run defines).
 */
export interface SuiteContext {
  timeout(ms: number | string): unknown;
  slow(ms: number | string): unknown;
  retries(n: number): unknown;
}

/** How many declared suites are running now (a declared suite may hold another). */
let declared = 0;

function declaring(this: SuiteContext, fn: (this: SuiteContext) => void): void {
  // The suite's first hooks: they run before any hook the suite itself registers.
  before(() => void declared++);
  after(() => void declared--);
  fn.call(this);
}

/** The run's stores, as a suite title names them: `sqlite`, or `postgres + redis`. */
export const storeName = `${testProvider}${testRedis ? ' + redis' : ''}`;

/** A suite that runs on every store: on SQLite, and on PostgreSQL with Redis. Its title names the run's store. */
export function describeStores(title: string, fn: (this: SuiteContext) => void): unknown {
  return describe(`${title} (${storeName}) ${EVERY_STORE}`, function () {
    declaring.call(this, fn);
  });
}

/**
 * A suite that runs once, in the SQLite run: `why` says why one store is enough (it picks its stores itself, it tests
 * one store's own behaviour, or what it tests does not depend on the store and another suite covers that code on
 * both).
 */
export function describeOneStore(title: string, why: string, fn: (this: SuiteContext) => void): unknown {
  if (!why.trim()) throw new Error(`describeOneStore('${title}'): say why one store is enough`);
  return describe(title, function () {
    declaring.call(this, fn);
  });
}

/** Makes every store a test asks for outside a `describeStores` or `describeOneStore` suite a failure. */
export function requireStoreDeclarations(): void {
  beforeEachStore((store) => {
    if (declared > 0) return;
    throw new Error(`a test made a ${store} store outside a suite that declares its stores: write its top describe as `
      + 'describeStores(title, fn) (every store) or describeOneStore(title, why, fn) (SQLite only), from restlayer/testing');
  });
}
