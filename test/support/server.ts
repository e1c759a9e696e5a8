import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AppConfig, LogLevel, RunningServer, ServiceModule } from 'restlayer';
import { type CallInit, type TestReply, startTestServer as startServer } from 'restlayer/testing';
import { application } from '../../services/index.js';
import { probeStoreModule } from './probe-store-module.js';

export type { CallInit, Envelope } from 'restlayer/testing';
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
export type Reply = TestReply;

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
  /** A token this server accepts (variant A keys), with any claims and signing options a test needs. */
  token(claims?: Record<string, unknown>, options?: jwt.SignOptions): string;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** Config overrides in the spec's shape, e.g. { RestAPI: { Path: '/api' } }. */
  config?: JsonObject;
  env?: NodeJS.ProcessEnv;
  /** Default: the sample data (this project's tests read the sample orders). */
  sampleData?: boolean;
  routesDir?: string;
  /** Modules of the test's own beside the application's (with `routesDir`, whose route files serve them). */
  modules?: readonly ServiceModule[];
  logLevel?: LogLevel;
  /** Serve Prometheus metrics on a port of their own (`metricsUrl`). */
  metrics?: boolean;
}

/**
 * This application's test server: restlayer/testing's (its store from RESTLAYER_TEST_STORAGE and RESTLAYER_TEST_REDIS,
 * a fresh database it drops), with the project's fixed test key, issuer and audience, and the sample data by default.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const env = Object.fromEntries(Object.entries(options.env ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
  const server = await startServer({
    // Probe route folders reach the store through a test module of their own (probe-store-module.ts).
    application: options.routesDir
      ? { modules: [...application.modules, probeStoreModule, ...(options.modules ?? [])], routesDir: options.routesDir } : application,
    sampleData: options.sampleData ?? true,
    logLevel: options.logLevel ?? 'debug',
    env: {
      Authentication__Schemes__Bearer__SigningKeys__0__Issuer: TEST_ISSUER,
      Authentication__Schemes__Bearer__SigningKeys__0__Value: TEST_KEY,
      Authentication__Schemes__Bearer__ValidIssuer: TEST_ISSUER,
      Authentication__Schemes__Bearer__ValidAudience: TEST_AUDIENCE,
      ...env,
    },
    config: options.config,
    metrics: options.metrics,
  });
  const key = Buffer.from(TEST_KEY, 'base64');
  const token = (claims: Record<string, unknown> = {}, signOptions: jwt.SignOptions = {}) =>
    jwt.sign({ sub: 'tester', name: 'Test User', role: ['Administrator'], ...claims }, key, {
      algorithm: 'HS256', issuer: TEST_ISSUER, audience: TEST_AUDIENCE, expiresIn: 600, ...signOptions,
    });
  const defaultToken = token();
  return {
    ...server,
    token,
    call: (path, init = {}) => server.call(path, { ...init, token: init.token === undefined ? defaultToken : init.token }),
  };
}
