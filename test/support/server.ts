import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../../lib/config/load.js';
import type { AppConfig } from '../../lib/config/schema.js';
import { type LogLevel, createLogger } from '../../lib/log.js';
import { type RunningServer, startServer } from '../../lib/server.js';
import { application } from '../../services/index.js';
import { probeStoreModule } from './probe-store-module.js';
import { createTestDatabase, dropRedisKeys, redisPrefix, redisUrl, testProvider, testRedis } from './test-stores.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The key tests sign variant A tokens with (Base64, as `dotnet user-jwts` writes keys). */
export const TEST_KEY = randomBytes(32).toString('base64');
export const TEST_ISSUER = 'restlayer-test';
export const TEST_AUDIENCE = 'restlayer-test-clients';

export interface TestServer extends RunningServer {
  config: AppConfig;
  /** Log lines the server wrote, parsed. */
  logs: Record<string, unknown>[];
  /** Calls the API with fetch; `path` is below the prefix. */
  call(path: string, init?: CallInit): Promise<Reply>;
  /** A token this server accepts (variant A keys). */
  token(claims?: Record<string, unknown>, options?: jwt.SignOptions): string;
  stop(): Promise<void>;
}

export interface CallInit {
  method?: string;
  /** Serialised as JSON unless a string is given (sent as is). */
  body?: unknown;
  token?: string | null;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  /** The parsed JSON body (undefined when empty). */
  body: Envelope;
  text: string;
}

export interface Envelope {
  result?: any;
  messages: { code: string; message: string; severity: string; type: string; property?: string }[];
  totalCount?: number;
  nextCursor?: string;
}

export interface TestServerOptions {
  /** Config overrides in the spec's shape, e.g. { RestAPI: { Path: '/api' } }. */
  config?: JsonObject;
  env?: NodeJS.ProcessEnv;
  sampleData?: boolean;
  routesDir?: string;
  logLevel?: LogLevel;
}

/** Starts a real server on an ephemeral port over its own SQLite file; `stop()` closes it and removes the file. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'restlayer-test-'));
  const database = testProvider === 'postgres' ? await createTestDatabase(options.sampleData ?? true) : undefined;
  const stores: JsonObject = database
    ? { Storage: { Provider: 'postgres', Postgres: { Url: database.url }, SampleData: options.sampleData ?? true } }
    : { Storage: { Sqlite: { Path: join(dir, 'test.db') }, SampleData: options.sampleData ?? true } };
  const prefix = redisPrefix();
  if (testRedis) stores.Cache = { Redis: { Url: redisUrl, KeyPrefix: prefix } };
  const { config } = loadConfig({
    env: {
      NODE_ENV: 'test',
      Authentication__Schemes__Bearer__SigningKeys__0__Issuer: TEST_ISSUER,
      Authentication__Schemes__Bearer__SigningKeys__0__Value: TEST_KEY,
      Authentication__Cookie__Keys: randomBytes(32).toString('base64'),
      ...options.env,
    },
    overrides: merge(
      {
        Authentication: { Schemes: { Bearer: { ValidIssuer: TEST_ISSUER, ValidAudience: TEST_AUDIENCE } } },
        // Many servers run at once, in production mode too: metrics only where a test sets a port.
        Metrics: { Port: 0 },
        ...stores,
      },
      options.config ?? {},
    ),
  });
  const logs: Record<string, unknown>[] = [];
  const log = createLogger(options.logLevel ?? 'debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
  const running = await startServer({
    // Probe route folders reach the store through a test module of their own (probe-store-module.ts).
    application: options.routesDir ? { modules: [...application.modules, probeStoreModule], routesDir: options.routesDir } : application, config, log, port: 0, host: '127.0.0.1',
  });
  const key = Buffer.from(TEST_KEY, 'base64');

  const token = (claims: Record<string, unknown> = {}, signOptions: jwt.SignOptions = {}) =>
    jwt.sign({ sub: 'tester', name: 'Test User', role: ['User'], ...claims }, key, {
      algorithm: 'HS256', issuer: TEST_ISSUER, audience: TEST_AUDIENCE, expiresIn: 600, ...signOptions,
    });
  const defaultToken = token();

  async function call(path: string, init: CallInit = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...init.headers };
    const bearer = init.token === undefined ? defaultToken : init.token;
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(running.url + path, { method: init.method ?? 'GET', headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as Envelope) : (undefined as unknown as Envelope) };
  }

  return {
    ...running,
    config,
    logs,
    call,
    token,
    async stop() {
      await running.close();
      await database?.drop();
      if (testRedis) await dropRedisKeys(prefix);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function merge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev) ? merge(prev, v) : v;
  }
  return out;
}
