import { expect } from 'chai';
import { type CliResult, childEnv } from './processes.js';
import { TEST_AUDIENCE, TEST_ISSUER, TEST_KEY, type TestServer } from './server.js';

/**
 * The environment of a `restlayer` admin process that works on the same deployment as `server`: the same signing
 * key, issuer and audience (through `__` variables, as an operator would set them), the same store (SQLite file or
 * PostgreSQL database, plus Redis when the server shares state there) and a fast password hash. `extra` comes last
 * (variant B settings, for example); an undefined value removes a variable.
 */
export function cliEnv(server: Pick<TestServer, 'config'>, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { Storage, Cache, Authentication, RestAPI } = server.config;
  return childEnv({
    Authentication__Variant: Authentication.Variant,
    Authentication__Schemes__Bearer__SigningKeys__0__Issuer: TEST_ISSUER,
    Authentication__Schemes__Bearer__SigningKeys__0__Value: TEST_KEY,
    Authentication__Schemes__Bearer__ValidIssuer: TEST_ISSUER,
    Authentication__Schemes__Bearer__ValidAudience: TEST_AUDIENCE,
    // The servers' cookie keys: the login throttle's counters in Redis are named with the newest (variant A).
    Authentication__Cookie__Keys: JSON.stringify(Authentication.Cookie.Keys),
    Authentication__PasswordHashCost: '10',
    RestAPI__Path: RestAPI.Path,
    Storage__Provider: Storage.Provider,
    Storage__SampleData: String(Storage.SampleData),
    ...(Storage.Provider === 'postgres' ? { Storage__Postgres__Url: Storage.Postgres.Url } : { Storage__Sqlite__Path: Storage.Sqlite.Path }),
    ...(Cache.Redis.Url ? { Cache__Redis__Url: Cache.Redis.Url, Cache__Redis__KeyPrefix: Cache.Redis.KeyPrefix } : {}),
    ...extra,
  });
}

/** A line of a Node stack trace, which no CLI failure may print. */
export const stackLine = /^\s+at\s/m;

/** The non-empty lines of a process's output. */
export const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/**
 * A failed command as contract part 8 wants it: exit `code` (1 failed, 2 usage), nothing on stdout, exactly one
 * stderr line containing `text`, and no stack trace.
 */
export function expectCliFailure(run: CliResult, code: 1 | 2, text?: string) {
  expect(run.code, `exit code; stderr: ${run.stderr}`).to.equal(code);
  expect(run.stdout).to.equal('');
  expect(run.stderr).to.not.match(stackLine);
  expect(lines(run.stderr), run.stderr).to.have.length(1);
  if (text) expect(run.stderr).to.include(text);
}
