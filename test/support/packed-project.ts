import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { lines } from './cli-env.js';
import { projectRoot } from './processes.js';

/**
 * What the tests of restlayer as a dependency share (test/package: packed.test.ts, starter.test.ts, grow.test.ts): the package
 * packed as `npm run pack` packs it, a new project's npm install of it (a registry is needed), and running its tools.
 */

const underCi = /^(1|true)$/i.test(process.env.CI ?? '');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (killed after `timeoutMs`), whatever its exit code. */
export function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr: err && code === null ? `${stderr}\n${err.message}` : stderr });
    });
  });
}

export const failure = (what: string, ran: Ran) => `${what} failed (exit ${ran.code}):\n${ran.stdout.slice(-4000)}\n${ran.stderr.slice(-4000)}`;

/**
 * npm's environment without what `npm test` hands its scripts (npm_config_*, npm_package_*...), which would make the
 * inner npm work on this project instead of the new one; and without NODE_ENV, which would leave out devDependencies.
 */
export function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && name !== 'INIT_CWD' && name !== 'NODE_ENV') env[name] = value;
  }
  return { ...env, ...extra };
}

/** The version of a package this repository has installed. */
export const installedVersion = (name: string) =>
  (JSON.parse(readFileSync(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * better-sqlite3 compiles SQLite from source when it cannot download a prebuilt binary (minutes on a small machine,
 * and this machine reaches no download host). Its installer, prebuild-install, first looks in the folder named by
 * npm_config_better_sqlite3_local_prebuilds: the project's own build of the same version goes there, so the new
 * project's install runs the real install script without compiling again. Without that build, it compiles.
 */
export async function localSqlitePrebuild(dir: string): Promise<{ version: string; env: Record<string, string> } | undefined> {
  const pkg = join(projectRoot, 'node_modules', 'better-sqlite3');
  if (!existsSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'))) return undefined;
  const version = installedVersion('better-sqlite3');
  const prebuilds = join(dir, 'prebuilds');
  mkdirSync(prebuilds, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = await run('tar', ['-czf', join(prebuilds, name), '-C', pkg, 'build/Release/better_sqlite3.node'], { cwd: dir, env: process.env, timeoutMs: 60_000 });
  if (tar.code !== 0) return undefined;
  return { version, env: { npm_config_better_sqlite3_local_prebuilds: prebuilds } };
}

/**
 * Whether the npm registry answers; when it does not, the suite is skipped (`skip`), except under CI=true, where that
 * is a failure. `what` names the suite in the message.
 */
export async function requireRegistry(what: string, work: string, skip: () => void): Promise<void> {
  const ping = await run('npm', ['ping'], { cwd: work, env: npmEnv(), timeoutMs: 60_000 });
  if (ping.code === 0) return;
  const reason = `the npm registry is not reachable (npm ping: ${lines(ping.stderr).slice(-1)[0] ?? `exit ${ping.code}`})`;
  if (underCi) throw new Error(`${what}: ${reason}. Under CI a missing registry is a failure.`);
  console.warn(`\n  SKIPPED ${what}: ${reason}. (Under CI=true this is a failure.)\n`);
  skip();
}

/**
 * The package as `npm run pack` packs it for publishing, over the build `npm test` has just made (not building it
 * again under the running suite): the layer bundled in `work`/package, packed into `work`. Answers the tarball's file
 * name (in `work`) and the files it holds.
 */
export async function packRestlayer(work: string): Promise<{ filename: string; files: string[] }> {
  const packed = await run(process.execPath, [join(projectRoot, '.ci', 'pack.mjs'), '--stage', join(work, 'package'), '--pack-destination', work], { cwd: projectRoot, env: npmEnv(), timeoutMs: 120_000 });
  if (packed.code !== 0) throw new Error(failure('pack', packed));
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  return { filename: info.filename, files: info.files.map((f) => f.path) };
}

/** `timed(step, fn)` runs fn and adds `step N s` to `took`: how long the steps of a suite took, for the record. */
export function stepTimer(took: string[]) {
  return async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      took.push(`${step} ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  };
}

/** `npm` run in the project folder `app`, with npm's environment for it (npmEnv) and `extra`. */
export const npmIn = (app: string) => (args: string[], extra: Record<string, string> = {}, timeoutMs = 10 * 60_000) =>
  run('npm', args, { cwd: app, env: npmEnv(extra), timeoutMs });

/** The CLI of the package as it is published (the bundle `packRestlayer` staged in `work`/package, run over this repository's node_modules). */
export async function packedCli(work: string, timed: ReturnType<typeof stepTimer>): Promise<{ cli: string; filename: string }> {
  const { filename } = await timed('pack', () => packRestlayer(work));
  symlinkSync(join(projectRoot, 'node_modules'), join(work, 'package', 'node_modules'), 'dir');
  return { cli: join(work, 'package', 'dist', 'bin', 'restlayer.js'), filename };
}

/**
 * `restlayer init <name>` run by the packed CLI in `work`, depending on the tarball, then npm install in it (a failure
 * of either throws). Test only: better-sqlite3 at the version whose build this repository has, so the install does not
 * compile it (localSqlitePrebuild says why).
 */
export async function initProject(work: string, name: string, packed: { cli: string; filename: string }, timed: ReturnType<typeof stepTimer>): Promise<{ app: string; made: Ran; installed: Ran }> {
  const made = await timed('restlayer init', () =>
    run(process.execPath, [packed.cli, 'init', name, '--restlayer', `file:../${packed.filename}`], { cwd: work, env: npmEnv(), timeoutMs: 60_000 }));
  if (made.code !== 0) throw new Error(failure('restlayer init', made));
  const app = join(work, name);
  const sqlite = await localSqlitePrebuild(work);
  if (sqlite) {
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(app, 'package.json'), JSON.stringify({ ...manifest, overrides: { 'better-sqlite3': sqlite.version } }, null, 2));
  }
  const installed = await timed(`npm install${sqlite ? '' : ' (compiling better-sqlite3)'}`, () => npmIn(app)(['install', '--prefer-offline', '--no-audit', '--no-fund'], sqlite?.env, 15 * 60_000));
  if (installed.code !== 0) throw new Error(failure('npm install in the new project', installed));
  return { app, made, installed };
}

/** Runs `fn` with the URL of a new PostgreSQL database (on the tests' server), dropped after. */
export async function withNewDatabase(prefix: string, fn: (url: URL) => Promise<void>): Promise<void> {
  const admin = process.env.RESTLAYER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const database = `${prefix}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${database}`);
    const url = new URL(admin);
    url.pathname = `/${database}`;
    await fn(url);
  } finally {
    await client.query(`drop database if exists ${database} with (force)`);
    await client.end();
  }
}
