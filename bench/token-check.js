// Micro-measure of the per-call caller check (the gate every secured route runs) for a variant A bearer token (login
// session), a bare token without session (variant B's shape) and a cookie session, once their state is known (the
// steady state of a client calling again and again): CPU ns per call (process CPU time, steadier than wall time on a
// shared machine) and how many store reads the checks made per call. No HTTP: the gate alone.
// Run after `npx tsc -p .`: node bench/token-check.js [--calls N]
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerVerification, requireCaller } from '../dist/lib/http/auth/authenticate.js';
import { tokenSettings } from '../dist/lib/auth/token-keys.js';
import { loadConfig } from '../dist/lib/config/load.js';
import { withErrorScope } from '../dist/lib/envelope/request-scope.js';
import { createLogger } from '../dist/lib/log.js';
import { startServer } from '../dist/lib/server.js';

const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 200_000;
const rounds = 7;

const dir = mkdtempSync(join(tmpdir(), 'restlayer-token-check-'));
const { config } = loadConfig({
  env: {
    NODE_ENV: 'production',
    Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
    Authentication__Schemes__Bearer__SigningKeys__0__Value: randomBytes(32).toString('base64'),
    Authentication__Cookie__Keys: randomBytes(32).toString('base64'),
    Authentication__PasswordHashCost: '10',
    Metrics__Port: '0',
  },
  overrides: { Storage: { Sqlite: { Path: join(dir, 'bench.db') }, SampleData: false } },
});
const server = await startServer({ config, log: createLogger('warn', () => {}), port: 0, host: '127.0.0.1' });
const { services } = server;
try {
  await withErrorScope(() => services.users.add({ userName: 'bench', roles: ['User'], password: 'bench-password-1' }));
  const login = await fetch(`${server.url}/auth/jwt`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userName: 'bench', password: 'bench-password-1' }),
  });
  const { accessToken } = (await login.json()).result;
  // The user as tokens carry it: with its credentials stamp where the services know one.
  const subject = services.users.tokenSubject
    ? (await withErrorScope(() => services.users.tokenSubject('bench'))).result
    : { userName: 'bench', name: 'bench', roles: ['User'] };
  const bareToken = (await withErrorScope(() => services.tokens.accessToken(subject))).result;
  const cookieUser = { userName: 'bench', name: 'bench', roles: ['User'] };
  const cookieSession = { user: cookieUser, loginAt: Date.now(), ...(subject.stamp ? { stamp: subject.stamp } : {}) };

  const gate = requireCaller(bearerVerification(tokenSettings(config), services.tokens), server.infrastructure.access, [], { allowedOrigins: [], cookieAbsoluteMs: 3_600_000 });
  const next = async () => {};
  const context = (authorization, session) => {
    const headers = authorization ? { authorization } : {};
    return {
      method: 'GET', protocol: 'http', host: '127.0.0.1', header: headers, headers,
      state: {}, services, session,
      get: (name) => headers[name.toLowerCase()] ?? '',
      set() {},
    };
  };

  // Every read the checks make goes through one of these two.
  let reads = 0;
  const { storage } = server.infrastructure;
  const readNow = storage.readNow?.bind(storage);
  if (readNow) storage.readNow = (query) => (reads++, readNow(query));
  const executeQuery = storage.db.executeQuery.bind(storage.db);
  storage.db.executeQuery = (query, ...rest) => (reads++, executeQuery(query, ...rest));

  const measure = async (name, make) => {
    // Warm-up: the first call verifies the token and reads the session and user state.
    for (let i = 0; i < 1000; i++) await gate(make(), next);
    const results = [];
    reads = 0;
    const started = Date.now();
    for (let r = 0; r < rounds; r++) {
      const start = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        const ctx = make();
        await gate(ctx, next);
        if (!ctx.state.principal) throw new Error(`${name}: the caller was refused`);
      }
      const used = process.cpuUsage(start);
      results.push(((used.user + used.system) * 1000) / calls);
    }
    const seconds = (Date.now() - started) / 1000;
    results.sort((a, b) => a - b);
    console.log(`${name.padEnd(34)} median ${results[rounds >> 1].toFixed(0).padStart(5)} CPU ns/call  (min ${results[0].toFixed(0)}, max ${results[rounds - 1].toFixed(0)});`
      + ` ${reads} store reads in ${calls * rounds} calls over ${seconds.toFixed(1)} s`);
  };

  console.log(`${calls} calls x ${rounds} rounds, SessionRecheckSeconds ${config.Authentication.SessionRecheckSeconds}`);
  await measure('variant A bearer (login session)', () => context(`Bearer ${accessToken}`));
  await measure('bare token (variant B shape)', () => context(`Bearer ${bareToken}`));
  await measure('cookie session', () => context(undefined, cookieSession));
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
