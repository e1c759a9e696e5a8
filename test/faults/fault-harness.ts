import { Agent, get, request } from 'node:http';
import pg from 'pg';
import { type Deployment, deployment } from '../support/cluster-env.js';
import { freePort } from '../support/http.js';
import { type ServeProcess, killChildren, runCli, startServe } from '../support/processes.js';
import { dropRedisKeys } from '../support/test-stores.js';
import { type TcpProxy, tcpProxy } from '../support/tcp-proxy.js';
import { mint } from '../support/tokens.js';

/**
 * A `serve --workers 2` deployment on PostgreSQL and Redis reached through TCP proxies the tests control, with short
 * bounds (1 s queries, 500 ms Redis commands) so each fault shows within a second or two.
 */
export interface FaultRig {
  d: Deployment;
  server: ServeProcess;
  pg: TcpProxy;
  redis: TcpProxy;
  /** The database without the proxy, for checking what was saved. */
  directUrl: string;
  token: string;
  /** Where the primary serves Prometheus metrics, when asked for (RigOptions.metrics). */
  metricsUrl?: string;
}

/** Longer than any bound of the server (1 s + grace), far shorter than its 30 s request timeout: past it, a request hangs. */
export const HANG_MS = 8_000;

export interface RigOptions {
  /** Without Redis: login throttling and lookup flushes go through the primary (default: with Redis). */
  redis?: boolean;
  /** Serve Prometheus metrics (on the primary, for every worker) at `metricsUrl`. */
  metrics?: boolean;
  /** More settings of the deployment. */
  env?: Record<string, string>;
  /** The CLI to serve with (default the project's): e.g. fault-cli.js, which adds the held write. */
  cli?: string;
}

export async function startRig(options: RigOptions = {}): Promise<FaultRig> {
  const d = await deployment({ Storage__QueryTimeoutSeconds: '1', Cache__Redis__CommandTimeoutMilliseconds: '500', ...options.env });
  const directUrl = d.env.Storage__Postgres__Url!;
  const pgUrl = new URL(directUrl);
  const redisUrl = new URL(d.env.Cache__Redis__Url!);
  const pgProxy = await tcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
  const redisProxy = await tcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  pgUrl.host = `127.0.0.1:${pgProxy.port}`;
  redisUrl.host = `127.0.0.1:${redisProxy.port}`;
  d.env.Storage__Postgres__Url = pgUrl.toString();
  d.env.Cache__Redis__Url = redisUrl.toString();
  if (options.redis === false) delete d.env.Cache__Redis__Url;
  let metricsUrl: string | undefined;
  if (options.metrics) {
    const port = await freePort();
    d.env.Metrics__Port = String(port);
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
  }
  const add = await runCli(['user', 'add', 'faye', '--role', 'Clerk', '--password-stdin'], { env: d.env, input: 'faye-password-1\n' });
  if (add.code !== 0) throw new Error(add.stderr);
  const server = await startServe(['--workers', '2', '--host', '127.0.0.1', '--port', '0'], { env: d.env, cli: options.cli });
  return { d, server, pg: pgProxy, redis: redisProxy, directUrl, metricsUrl, token: mint({ key: d.key, issuer: d.issuer, audience: d.audience }) };
}

/** Stops what `startRig` started: the server, the proxies, the database and the Redis keys. */
export async function stopRig(rig: FaultRig | undefined): Promise<void> {
  await killChildren();
  await rig?.pg.close();
  await rig?.redis.close();
  await rig?.d.drop();
  if (rig) await dropRedisKeys(rig.d.prefix);
}

export interface Answer {
  status: number | 'hang';
  code?: string;
  retryAfter?: string | null;
  result?: Record<string, unknown>;
  setCookie?: string[];
}

export interface CallInit {
  method?: string;
  body?: unknown;
  auth?: 'token' | 'none';
  cookie?: string;
  headers?: Record<string, string>;
  /** How long the answer may take before it counts as a hang (default HANG_MS). */
  timeoutMs?: number;
  /**
   * On a connection of its own, closed after the answer: the primary hands each new connection to the next worker in
   * turn, where `fetch` keeps asking the worker behind its kept-alive connection.
   */
  newConnection?: boolean;
}

/** One call; a request not answered within HANG_MS (or `timeoutMs`) is recorded as a hang instead of failing the test there. */
export async function call(rig: FaultRig, path: string, init: CallInit = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if ((init.auth ?? 'token') === 'token') headers.Authorization = `Bearer ${rig.token}`;
  if (init.cookie) headers.Cookie = init.cookie;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  return callUrl(rig.server.url, path, { ...init, headers });
}

/** `call` for any server: `base` is its URL (with the prefix); `headers` are sent as they are. */
export async function callUrl(base: string, path: string, init: Omit<CallInit, 'auth' | 'cookie'> = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  const timeoutMs = init.timeoutMs ?? HANG_MS;
  if (init.newConnection) return callOnNewConnection(`${base}${path}`, init.method ?? 'GET', headers, init.body, timeoutMs);
  try {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const body = text ? JSON.parse(text) as { messages?: { code: string }[]; result?: Record<string, unknown> } : {};
    return { status: res.status, code: body.messages?.[0]?.code, retryAfter: res.headers.get('Retry-After'), result: body.result, setCookie: res.headers.getSetCookie() };
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') return { status: 'hang' };
    throw err;
  }
}

function callOnNewConnection(url: string, method: string, headers: Record<string, string>, body: unknown, timeoutMs: number, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: agent ? headers : { ...headers, Connection: 'close' }, agent: agent ?? false, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const parsed = text ? JSON.parse(text) as { messages?: { code: string }[]; result?: Record<string, unknown> } : {};
        const setCookie = res.headers['set-cookie'] ?? [];
        resolve({ status: res.statusCode!, code: parsed.messages?.[0]?.code, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null, result: parsed.result, setCookie });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => {
      req.destroy();
      resolve({ status: 'hang' });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * A kept-alive connection to one worker, known by its pid (GET /whoami of fault-cli.ts): reads through it show what
 * that worker serves.
 */
export interface WorkerConnection {
  pid: string;
  /** A request (GET by default) on this connection, and the pid that answered right after it on the same connection. */
  request(path: string, init?: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<Answer & { servedBy?: string }>;
  close(): void;
}

/**
 * One kept-alive connection to each of `count` workers of a server of fault-cli.ts: new ones until each was met (a
 * worker still starting is waited for, up to 30 s).
 */
export async function connectionPerWorker(base: string, count: number): Promise<WorkerConnection[]> {
  const found = new Map<string, WorkerConnection>();
  for (const until = Date.now() + 30_000; found.size < count;) {
    if (Date.now() > until) throw new Error(`met ${found.size} of ${count} workers in 30 s`);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const whoami = async () => (await callOnNewConnection(`${base}/whoami`, 'GET', {}, undefined, HANG_MS, agent)).result?.pid as string | undefined;
    const pid = await whoami();
    if (!pid || found.has(pid)) {
      agent.destroy();
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    found.set(pid, {
      pid,
      async request(path, init = {}) {
        const headers = { ...init.headers, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) };
        const answer = await callOnNewConnection(`${base}${path}`, init.method ?? 'GET', headers, init.body, HANG_MS, agent);
        return { ...answer, servedBy: await whoami() };
      },
      close: () => agent.destroy(),
    });
  }
  return [...found.values()];
}

export const ready = (rig: FaultRig) => call(rig, '/health/ready', { auth: 'none' });

/** A tally such as "201×12 503 Storage_Unavailable×3" for the report. */
export function tally(answers: Answer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key = a.status === 503 || a.status === 'hang' || (typeof a.status === 'number' && a.status >= 500) ? `${a.status} ${a.code ?? ''}`.trim() : String(a.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort().map(([k, n]) => `${k}×${n}`).join(', ');
}

/** Every answer that is not what a fault may answer: a 5xx other than 503 with Retry-After, or a hang. */
export const misbehaving = (answers: Answer[], ok: number[]) =>
  answers.filter((a) => !(typeof a.status === 'number' && (ok.includes(a.status) || (a.status === 503 && a.retryAfter))));

/**
 * Readiness asked on a connection of its own: the primary hands each new connection to the next worker in turn, where
 * `fetch` would keep asking the one worker behind its kept-alive connection.
 */
function readyOnNewConnection(rig: FaultRig): Promise<number> {
  return new Promise((resolve) => {
    const req = get(`${rig.server.url}/health/ready`, { agent: false, timeout: HANG_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * Polls readiness until every worker answers 200 (4 in a row on new connections: each of the 2 workers twice), how
 * long that took after the fault ended (for the report only), or 'never' past `limitMs` (the caller reports, then
 * fails). One worker ready is not the deployment ready: each reconnects to Redis on its own backoff.
 */
export async function recovery(rig: FaultRig, limitMs = 20_000): Promise<number | 'never'> {
  const start = Date.now();
  for (let inARow = 0; ;) {
    inARow = (await readyOnNewConnection(rig)) === 200 ? inARow + 1 : 0;
    if (inARow >= 4) return Date.now() - start;
    if (Date.now() - start > limitMs) return 'never';
    if (!inARow) await new Promise((r) => setTimeout(r, 100));
  }
}

/** How many of the sales orders created with these ids are in the database (read directly, not through the proxy). */
export async function ordersSaved(rig: FaultRig, ids: number[]): Promise<number> {
  const client = new pg.Client({ connectionString: rig.directUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from sales_order where sales_order_id = any($1::int[])', [ids]);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/** Calls `fn` `n` times, `concurrency` at a time, keeping every answer. */
export async function load<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  }));
  return out;
}

export const report = (line: string) => console.log(`      ${line}`);
