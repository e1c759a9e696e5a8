import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_POOL_SIZE, sqliteTemplate } from 'restlayer/testing';
import { application } from '../../services/index.js';
import { newKey } from './tokens.js';

/** The project folder (this file runs as dist/test/support/processes.js). */
export const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** The built CLI, as `npx restlayer` runs it. */
export const cliPath = join(projectRoot, 'dist', 'bin', 'restlayer.js');

/**
 * An environment for a child process that inherits nothing configuration-like from the test runner: only what a
 * process needs to run, NODE_ENV=test, and `extra` (undefined values are dropped).
 */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // A server's pool is smaller than its default, as test servers' are (TEST_POOL_SIZE): the run's processes share one
  // PostgreSQL's max_connections, and a `serve --workers 2` would otherwise open up to 30 of its 100.
  const env: NodeJS.ProcessEnv = { NODE_ENV: 'test', Storage__Postgres__PoolSize: String(TEST_POOL_SIZE) };
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT', 'SystemRoot']) if (process.env[name]) env[name] = process.env[name];
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * The environment of a `restlayer serve` process over the SQLite file `db`, signing variant A tokens with `key`
 * (issuer and audience `restlayer`) and a fresh cookie key; `extra` adds or overrides settings.
 */
export function sqliteServeEnv(db: string, key: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return childEnv({
    Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
    Authentication__Schemes__Bearer__SigningKeys__0__Value: key,
    Authentication__Cookie__Keys: newKey(),
    Storage__Sqlite__Path: db,
    Log__Level: 'info',
    ...extra,
  });
}

/**
 * `path` made a copy of the run's seeded SQLite template (the sample data, migrated once per run), for a `serve`
 * process whose test is not about the first start: seeding 12,000 orders costs a process seconds, a copy nothing.
 */
export async function seededSqlite(path: string): Promise<string> {
  copyFileSync(await sqliteTemplate(application.modules, true), path);
  return path;
}

const running = new Set<ChildProcess>();

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function track(child: ChildProcess): Promise<Exit> {
  running.add(child);
  return new Promise<Exit>((resolve, reject) => {
    child.once('error', (err) => {
      running.delete(child);
      reject(err);
    });
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
}

/** Kills (SIGKILL) every child these helpers started that is still running, and waits for them to go. */
export async function killChildren(): Promise<void> {
  const children = [...running];
  await Promise.all(children.map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('close', () => resolve());
    child.kill('SIGKILL');
  })));
}

export interface CliResult extends Exit {
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The CLI's script (default the project's built dist/bin/restlayer.js), e.g. an application's own main.js. */
  cli?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: string;
  /** The child is killed after this long (a hung CLI fails the test instead of hanging it). */
  timeoutMs?: number;
}

/** Runs `node dist/bin/restlayer.js ...args` to completion. */
export async function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [options.cli ?? cliPath, ...args], {
    env: options.env ?? childEnv(),
    cwd: options.cwd ?? projectRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exit = track(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin!.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  try {
    const { code, signal } = await exit;
    return { code, signal, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

export interface ServeProcess {
  child: ChildProcess;
  /** The base URL the server printed, e.g. http://127.0.0.1:41234 (plus the API prefix). */
  url: string;
  port: number;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has ended. */
  exited: Promise<Exit>;
  /** Resolves with the first stderr line matching `pattern` (already written or still to come). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

const servingLine = /restlayer is serving (http:\/\/\S+)/;

/**
 * Starts `restlayer serve ...args` and waits for the line it prints once listening. Fails with the process's
 * stderr when it ends first or does not get there within `timeoutMs`.
 */
export async function startServe(args: string[], options: RunOptions = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [options.cli ?? cliPath, 'serve', ...args], {
    env: options.env ?? childEnv(),
    cwd: options.cwd ?? projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = track(child);
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  const notify = () => watchers.forEach((w) => w());
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    notify();
  });

  const waitFor = (read: () => string, pattern: RegExp, timeoutMs: number, what: string) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const done = (err?: Error, match?: RegExpExecArray) => {
        watchers.delete(check);
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(match!);
      };
      const check = () => {
        const match = pattern.exec(read());
        if (match) done(undefined, match);
      };
      const timer = setTimeout(() => done(new Error(`timed out waiting for ${what} ${pattern}; stderr:\n${stderr}`)), timeoutMs);
      watchers.add(check);
      exited.then(
        (exit) => done(new Error(`restlayer serve ended (${JSON.stringify(exit)}) before ${what} ${pattern}; stderr:\n${stderr}`)),
        (err: Error) => done(err),
      );
      check();
    });

  let match: RegExpExecArray;
  try {
    match = await waitFor(() => stdout, servingLine, options.timeoutMs ?? 30_000, 'stdout');
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const url = match[1];
  return {
    child,
    url,
    port: Number(new URL(url).port),
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitForStderr: async (pattern, timeoutMs = 15_000) => {
      const m = await waitFor(() => stderr, pattern, timeoutMs, 'stderr');
      const start = stderr.lastIndexOf('\n', m.index) + 1;
      const end = stderr.indexOf('\n', m.index);
      return stderr.slice(start, end < 0 ? undefined : end);
    },
  };
}
