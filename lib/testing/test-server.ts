import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AccessTokenClaims, signAccessToken } from '../auth/tokens.js';
import { tokenSettings } from '../auth/token-keys.js';
import { loadConfig } from '../config/load.js';
import type { AppConfig } from '../config/schema.js';
import type { ErrorMessage } from '../envelope/error-message.js';
import { type LogLevel, createLogger } from '../log.js';
import { type Application, type RunningServer, startServer } from '../server.js';
import type { LayerServices } from '../routing/layer-services.js';
import {
  type TestDatabase, type TestProvider, checkStore, createTestDatabase, dropRedisKeys, pgAdminUrl, redisPrefix, redisUrl, sqliteTemplate, testProvider, testRedis,
} from './test-stores.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface TestServerOptions {
  /** The modules and routes folder the server runs, as the application's CLI gets them. */
  application: Application;
  /** Settings in the configuration's shape, applied last, e.g. `{ RestAPI: { Path: '/api' } }`. */
  config?: JsonObject;
  /**
   * The environment the configuration is read from, on top of NODE_ENV=test and fresh signing and cookie keys. The
   * test runner's own environment is not read (but for RESTLAYER_TEST_*), so a variable set for something else cannot
   * change the server.
   */
  env?: Record<string, string>;
  /**
   * The store: a new SQLite file, or a new PostgreSQL database the server owns and `stop()` drops. Default: what `env`
   * or `config` set as Storage:Provider, else RESTLAYER_TEST_STORAGE (`postgres`), else SQLite. On PostgreSQL the
   * database is created on the server of Storage:Postgres:Url when `env` or `config` give one, else RESTLAYER_TEST_PG_URL.
   */
  storage?: TestProvider;
  /** Share state through Redis under a key prefix of its own (removed by `stop()`). Default: RESTLAYER_TEST_REDIS. */
  redis?: boolean;
  /** Serve Prometheus metrics on a free port of its own (`metricsUrl`). Default: no metrics listener. */
  metrics?: boolean;
  /** Fill the empty store with the modules' sample data (default: no, each test writes the rows it needs). */
  sampleData?: boolean;
  /** Log lines are kept in `logs`, from this level (default `warn`). */
  logLevel?: LogLevel;
}

export interface CallInit {
  method?: string;
  /** Sent as JSON, or as is when a string. */
  body?: unknown;
  /** A bearer token, or null for none; default: `token()`, an Administrator of this server. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** The envelope of an answer. `R` is what the test expects the result to be: its assertions check it. */
export interface Envelope<R = any> {
  result?: R;
  messages: Omit<ErrorMessage, 'status'>[];
  totalCount?: number;
  nextCursor?: string;
}

export interface TestReply<R = any> {
  status: number;
  headers: Headers;
  /** The envelope (undefined for a body-less answer such as 304). */
  body: Envelope<R>;
  text: string;
}

export interface TestServer<S extends LayerServices = LayerServices> extends Omit<RunningServer, 'services'> {
  config: AppConfig;
  /** The services routes reach, for arranging data a test needs without HTTP. */
  services: S;
  /** The store's provider. */
  storage: TestProvider;
  /** SQLite: the file the server uses, e.g. for the application's CLI in a child process (`Storage__Sqlite__Path`). */
  databasePath?: string;
  /** PostgreSQL: the URL of the database this server made for itself (`Storage__Postgres__Url`). */
  databaseUrl?: string;
  /** Log lines the server wrote, parsed. */
  logs: Record<string, unknown>[];
  /** An access token this server accepts, signed with its key: user `tester`, role Administrator, unless `claims` say otherwise. */
  token(claims?: Partial<AccessTokenClaims>, lifetimeSeconds?: number): string;
  /** Calls the API; `path` is below the prefix. */
  call<R = any>(path: string, init?: CallInit): Promise<TestReply<R>>;
  /** Closes the server and removes its database (and its Redis keys). */
  stop(): Promise<void>;
}

const newKey = () => randomBytes(32).toString('base64');
/** Storage:Postgres:PoolSize of a test server on PostgreSQL (a writer pool of 5, a reader of 3) unless its config names one. */
export const TEST_POOL_SIZE = 5;

/** A port free a moment ago: the metrics listener binds it (the API listens on port 0 instead). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const configured = (config: JsonObject | undefined, ...path: string[]): Json | undefined =>
  path.reduce<Json | undefined>((node, key) => (node && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined), config);

/** Which store the options ask for: said outright, through the configuration, or by the run's environment. */
function providerOf(options: TestServerOptions): TestProvider {
  const asked = options.storage ?? options.env?.Storage__Provider ?? configured(options.config, 'Storage', 'Provider') ?? testProvider;
  if (asked !== 'sqlite' && asked !== 'postgres') throw new Error(`startTestServer: storage must be sqlite or postgres, not ${String(asked)}`);
  return asked;
}

/**
 * Starts `application` on an ephemeral port of 127.0.0.1 over a store of its own (a new SQLite file in a new
 * temporary folder, or a new PostgreSQL database; either a copy of a template migrated, and seeded when asked, once
 * per run), with variant A authentication and keys made for this server alone.
 */
export async function startTestServer<S extends LayerServices = LayerServices>(options: TestServerOptions): Promise<TestServer<S>> {
  const storage = providerOf(options);
  checkStore(storage);
  const sampleData = options.sampleData ?? false;
  const dir = mkdtempSync(join(tmpdir(), 'restlayer-test-'));
  const databasePath = storage === 'sqlite' ? join(dir, 'test.db') : undefined;
  let database: TestDatabase | undefined;
  // A Redis location or prefix the options give is kept (a test may reach Redis through a proxy, or read its keys).
  const givenRedis = options.env?.Cache__Redis__Url ?? (configured(options.config, 'Cache', 'Redis', 'Url') as string | undefined);
  const redis = options.redis ?? (Boolean(givenRedis) || testRedis);
  const redisAt = givenRedis || redisUrl;
  const prefix = options.env?.Cache__Redis__KeyPrefix ?? (configured(options.config, 'Cache', 'Redis', 'KeyPrefix') as string | undefined) ?? redisPrefix();
  const cleanUp = async () => {
    await database?.drop();
    if (redis) await dropRedisKeys(prefix, redisAt);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (storage === 'postgres') {
      const admin = options.env?.Storage__Postgres__Url ?? (configured(options.config, 'Storage', 'Postgres', 'Url') as string | undefined) ?? pgAdminUrl;
      database = await createTestDatabase(options.application.modules, sampleData, admin);
    } else {
      // A copy of the run's template: migrating and seeding 12,000 orders costs seconds, copying the file milliseconds.
      copyFileSync(await sqliteTemplate(options.application.modules, sampleData), databasePath!);
    }
    const stores: JsonObject = {
      Storage: database
        // A smaller pool than a server's default unless the test names one: a test process runs many servers at once,
        // and the run's parallel workers share one PostgreSQL's max_connections.
        ? { Provider: 'postgres', Postgres: { Url: database.url, PoolSize: configured(options.config, 'Storage', 'Postgres', 'PoolSize') ?? TEST_POOL_SIZE }, SampleData: sampleData }
        : { Provider: 'sqlite', Sqlite: { Path: databasePath! }, SampleData: sampleData },
    };
    if (options.metrics) stores.Metrics = { Port: await freePort() };
    if (redis) stores.Cache = { Redis: { Url: redisAt, KeyPrefix: prefix } };
    const { config } = loadConfig({
      env: {
        NODE_ENV: 'test',
        Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
        Authentication__Schemes__Bearer__SigningKeys__0__Value: newKey(),
        Authentication__Cookie__Keys: newKey(),
        ...options.env,
      },
      // The stores last: the database made here replaces the one `config` or `env` named (that server made it).
      // No metrics listener unless asked for: a test process runs many servers, and they would all want one port.
      overrides: merge(merge({ Metrics: { Port: 0 } }, options.config ?? {}), stores),
    });
    const logs: Record<string, unknown>[] = [];
    const log = createLogger(options.logLevel ?? 'warn', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
    const running = await startServer({ application: options.application, config, log, port: 0, host: '127.0.0.1' });
    const settings = tokenSettings(config);
    const token = (claims: Partial<AccessTokenClaims> = {}, lifetimeSeconds?: number) =>
      signAccessToken(settings, { sub: 'tester', name: 'Test User', role: ['Administrator'], ...claims }, lifetimeSeconds);
    const defaultToken = token();

    const call = async <R>(path: string, init: CallInit = {}): Promise<TestReply<R>> => {
      const headers: Record<string, string> = { ...init.headers };
      const bearer = init.token === undefined ? defaultToken : init.token;
      if (bearer) headers.Authorization = `Bearer ${bearer}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const method = init.method ?? 'GET';
      const send = () => fetch(running.url + path, { method, headers, body });
      const res = await send().catch((err: unknown) => {
        // A kept-alive connection closed by the server just as this request reused it (the test and the server share
        // one busy event loop): a GET or HEAD is sent once more, on a new connection, as browsers do. A server that
        // breaks the connection of such a request each time still fails the test.
        if ((method === 'GET' || method === 'HEAD') && staleConnection(err)) return send();
        throw err;
      });
      const text = await res.text();
      // A CSV export (Accept: text/csv) is read as text only; every other answer of the API is the envelope.
      const envelope = text && !res.headers.get('content-type')?.startsWith('text/csv');
      return { status: res.status, headers: res.headers, text, body: envelope ? (JSON.parse(text) as Envelope<R>) : (undefined as unknown as Envelope<R>) };
    };

    return {
      ...running,
      config,
      // The services are created from the application's modules, so they are the application's (ServicesOf<…>).
      services: running.services as S,
      storage,
      databasePath,
      databaseUrl: database?.url,
      logs,
      token,
      call,
      async stop() {
        const closing = running.close();
        // A test that stops its server sends nothing more: its idle kept-alive connections (fetch keeps them) close
        // now rather than after the keep-alive timeout a graceful drain grants a client that might still send.
        running.server.closeIdleConnections();
        await closing;
        await cleanUp();
      },
    };
  } catch (err) {
    await cleanUp().catch(() => {});
    throw err;
  }
}

function merge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev) ? merge(prev, v) : v;
  }
  return out;
}

/** Whether fetch failed because the connection it reused was closed under it (reset, or closed by the other side). */
function staleConnection(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE';
}
