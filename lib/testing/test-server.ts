import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AccessTokenClaims, signAccessToken } from '../auth/tokens.js';
import { tokenSettings } from '../auth/token-keys.js';
import { loadConfig } from '../config/load.js';
import type { AppConfig } from '../config/schema.js';
import type { ErrorMessage } from '../envelope/error-message.js';
import { type LogLevel, createLogger } from '../log.js';
import { type Application, startServer } from '../server.js';
import type { LayerServices } from '../routing/layer-services.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface TestServerOptions {
  /** The modules and routes folder the server runs, as the application's CLI gets them. */
  application: Application;
  /** Settings in the configuration's shape, applied last, e.g. `{ RestAPI: { Path: '/api' } }`. */
  config?: JsonObject;
  /**
   * The environment the configuration is read from, on top of NODE_ENV=test and fresh signing and cookie keys. The
   * test runner's own environment is not read, so a variable set for something else cannot change the server.
   */
  env?: Record<string, string>;
  /** Fill the empty store with the modules' sample data (default: no, each test writes the rows it needs). */
  sampleData?: boolean;
  /** Log lines are kept in `logs`, from this level (default `warn`). */
  logLevel?: LogLevel;
}

export interface CallInit {
  method?: string;
  /** Sent as JSON, or as is when a string. */
  body?: unknown;
  /** A bearer token, or null for none; default: `token()`, a User of this server. */
  token?: string | null;
  headers?: Record<string, string>;
}

export interface TestReply<R = unknown> {
  status: number;
  headers: Headers;
  /** The envelope (undefined for a body-less answer such as 304). */
  body: { result?: R; messages: Omit<ErrorMessage, 'status'>[]; totalCount?: number };
  text: string;
}

export interface TestServer<S extends LayerServices = LayerServices> {
  /** The API's base URL, prefix included, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  config: AppConfig;
  /** The services routes reach, for arranging data a test needs without HTTP. */
  services: S;
  /** The SQLite file the server uses, e.g. for the application's CLI in a child process (`Storage__Sqlite__Path`). */
  databasePath: string;
  /** Log lines the server wrote, parsed. */
  logs: Record<string, unknown>[];
  /** An access token this server accepts, signed with its key: user `tester`, role User, unless `claims` say otherwise. */
  token(claims?: Partial<AccessTokenClaims>, lifetimeSeconds?: number): string;
  /** Calls the API; `path` is below the prefix. */
  call<R = unknown>(path: string, init?: CallInit): Promise<TestReply<R>>;
  /** Closes the server and removes its database. */
  stop(): Promise<void>;
}

const newKey = () => randomBytes(32).toString('base64');

/**
 * Starts `application` on an ephemeral port of 127.0.0.1 over an SQLite file of its own (in a new temporary folder),
 * with variant A authentication and keys made for this server alone.
 */
export async function startTestServer<S extends LayerServices = LayerServices>(options: TestServerOptions): Promise<TestServer<S>> {
  const dir = mkdtempSync(join(tmpdir(), 'restlayer-test-'));
  const databasePath = join(dir, 'test.db');
  try {
    const { config } = loadConfig({
      env: {
        NODE_ENV: 'test',
        Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
        Authentication__Schemes__Bearer__SigningKeys__0__Value: newKey(),
        Authentication__Cookie__Keys__0: newKey(),
        ...options.env,
      },
      // No metrics listener unless asked for: a test process runs many servers, and they would all want one port.
      overrides: merge({
        Storage: { Provider: 'sqlite', Sqlite: { Path: databasePath }, SampleData: options.sampleData ?? false },
        Metrics: { Port: 0 },
      }, options.config ?? {}),
    });
    const logs: Record<string, unknown>[] = [];
    const log = createLogger(options.logLevel ?? 'warn', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
    const running = await startServer({ application: options.application, config, log, port: 0, host: '127.0.0.1' });
    const settings = tokenSettings(config);
    const token = (claims: Partial<AccessTokenClaims> = {}, lifetimeSeconds?: number) =>
      signAccessToken(settings, { sub: 'tester', name: 'Test User', role: ['User'], ...claims }, lifetimeSeconds);
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
      const res = await fetch(running.url + path, { method: init.method ?? 'GET', headers, body });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as TestReply<R>['body']) : (undefined as unknown as TestReply<R>['body']) };
    };

    return {
      url: running.url,
      port: running.port,
      config,
      // The services are created from the application's modules, so they are the application's (ServicesOf<…>).
      services: running.services as S,
      databasePath,
      logs,
      token,
      call,
      async stop() {
        await running.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
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
