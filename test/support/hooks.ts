import { appendFileSync } from 'node:fs';
import { endTestRun, startTestRun } from 'restlayer/testing';
// Every suite that makes a store must declare its stores (test/support/stores.ts registers the check).
import './stores.js';
import { dropTestDatabases, postgresProblem, redisProblem, testProvider, testRedis } from './test-stores.js';

const underCi = /^(1|true)$/i.test(process.env.CI ?? '');

/**
 * Skips the calling suite (or hook's suite) with the reason when a service it needs is missing; under CI
 * (CI=true) a missing service is a failure instead.
 */
export async function requireServices(context: Mocha.Context, services: ('postgres' | 'redis')[], what: string): Promise<void> {
  const problems = (await Promise.all(services.map((s) => (s === 'postgres' ? postgresProblem() : redisProblem())))).filter(Boolean);
  if (problems.length) skipOrFail(context, what, problems.join('; '));
}

/** Skips the calling suite with the reason something it needs is missing; under CI (CI=true), fails it instead. */
export function skipOrFail(context: Mocha.Context, what: string, problem: string): never {
  if (underCi) throw new Error(`${what}: ${problem}. Under CI a missing service is a failure.`);
  console.warn(`\n  SKIPPED ${what}: ${problem}. (Under CI=true this is a failure.)\n`);
  context.skip();
}

/**
 * Root hooks of every run. A run on PostgreSQL or Redis whose service is missing is skipped with the reason,
 * except under CI (CI=true), where a missing service is a failure.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    fileStarted = performance.now();
    await requireServices(this, [...(testProvider === 'postgres' ? ['postgres' as const] : []), ...(testRedis ? ['redis' as const] : [])], `the ${testProvider} suites`);
  },
  async afterAll(this: Mocha.Context) {
    await dropTestDatabases();
    recordFileTime(this);
  },
};

let fileStarted = 0;

/**
 * With RESTLAYER_TEST_TIMES naming a file, appends how long this run's file took (a JSON line): in mocha's parallel
 * mode the root hooks run once per file, so this is each file's time, hooks included. run-suite.ts lists the slowest.
 */
function recordFileTime(context: Mocha.Context): void {
  const times = process.env.RESTLAYER_TEST_TIMES;
  const files = new Set(context.test?.parent?.suites.map((s) => s.file).filter(Boolean));
  // Only in a parallel worker (mocha names it) are the root hooks one file's; the runner times the others itself.
  if (!times || process.env.MOCHA_WORKER_ID === undefined || files.size !== 1) return;
  appendFileSync(times, `${JSON.stringify({ file: [...files][0], ms: Math.round(performance.now() - fileStarted), store: testProvider })}\n`);
}

/**
 * Once per run, in mocha's own process: the worker processes of `--parallel` share the run's store templates (one
 * seeded SQLite file, one PostgreSQL template database), which the run removes at its end.
 */
export const mochaGlobalSetup = startTestRun;
export const mochaGlobalTeardown = endTestRun;
