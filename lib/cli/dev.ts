import { type ChildProcess, fork } from 'node:child_process';
import { type FSWatcher, existsSync, readFileSync, statSync, watch } from 'node:fs';
import { setPriority } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { AppConfig } from '../config/schema.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import type { CheckerReport } from './dev-checker.js';
import { DevProject, projectTypeScript } from './dev-project.js';
import { DevServer } from './dev-server.js';
import { DEV_LOOP_VARIABLE } from './stale-build.js';
import { layerPath } from '../package-paths.js';

export interface DevOptions {
  port?: number;
  host?: string;
  web?: boolean;
  /** The tsconfig (default tsconfig.json). */
  project?: string;
  /** The built CLI that serves the application (default the package.json "bin"). */
  entry?: string;
}


/** Niceness of the type check: the server's restart gets the CPU first, the check the rest. */
const CHECKER_NICENESS = 10;
/** Editors write a file in several steps (and a scaffold writes many): changes are taken together after this pause. */
const SETTLE_MS = 40;

interface PackageJson {
  name?: string;
  bin?: string | Record<string, string>;
}

/** The project's built CLI (its package.json "bin", which calls runCli) and the name `npx` runs it by. */
function serverEntry(root: string, given: string | undefined): { entry: string; command: string } {
  const file = join(root, 'package.json');
  if (!existsSync(file)) throw new CliError(`no package.json in ${root}: run restlayer dev in the project's folder`);
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
  const name = pkg.name?.replace(/^@[^/]+\//, '') ?? 'restlayer';
  const bins = typeof pkg.bin === 'string' ? { [name]: pkg.bin } : pkg.bin ?? {};
  const [command, path] = given
    ? [Object.entries(bins).find(([, p]) => resolve(root, p) === resolve(root, given))?.[0], given]
    : Object.entries(bins).length === 1 ? Object.entries(bins)[0] : [name, bins[name]];
  if (!path) {
    throw new CliError('restlayer dev: name the built file that serves the application with --entry (e.g. --entry dist/bin/app.js), '
      + 'or give package.json one "bin"', 2);
  }
  return { entry: resolve(root, path), command: command ? `npx ${command}` : `node ${path}` };
}

/** Where the development data is, as the banner says it. */
function databaseText(config: AppConfig): string {
  if (config.Storage.Provider === 'sqlite') return `${config.Storage.Sqlite.Path} (SQLite)`;
  try {
    const url = new URL(config.Storage.Postgres.Url);
    return `${url.pathname.slice(1)} on ${url.host} (PostgreSQL)`;
  } catch {
    return 'PostgreSQL (Storage:Postgres:Url)';
  }
}

/** Whether the JavaScript of `source` is missing or older than it. */
function outdated(project: DevProject, source: string): boolean {
  const js = project.javaScriptOf(source);
  return js !== undefined && (!existsSync(js) || statSync(js).mtimeMs < statSync(source).mtimeMs);
}

const say = (text: string) => process.stdout.write(`restlayer dev: ${text}\n`);
const shown = (root: string, file: string) => relative(root, file).split(sep).join('/');

/**
 * `restlayer dev` (declared in commands.ts): serves the project and restarts the server within seconds of each edit.
 * A changed source is transpiled on its own into the build folder (what tsc would write for it), then the server
 * restarts; the full type check (tsc --watch, incremental) runs beside it at a lower priority, prints its errors, and
 * writes tsc's exact output, restarting the server again where that differs. The development database stays.
 */
export async function dev(opts: DevOptions): Promise<void> {
  const root = process.cwd();
  process.env.NODE_ENV ??= 'development';
  if (process.env.NODE_ENV === 'production') throw new CliError('restlayer dev is for development and NODE_ENV is production: serve the build with restlayer serve (npm start)');
  const { config } = configOrFail({ writeNothing: true });
  const { entry, command } = serverEntry(root, opts.entry);
  const project = new DevProject(projectTypeScript(root), resolve(root, opts.project ?? 'tsconfig.json'));

  // A build older than its sources (a pull, edits without the loop) is brought up to date before the first start.
  const behind = project.sourceFiles.filter((source) => outdated(project, source));
  for (const source of behind) project.transpile(source);
  if (behind.length) say(`brought ${behind.length} file(s) of the build up to date`);
  if (!existsSync(entry)) throw new CliError(`${shown(root, entry)} does not exist: build the project once (npm run build), then run the dev loop`);

  let stopping = false;
  const serveArgs = [entry, 'serve', ...(opts.web ? ['--web'] : []), ...(opts.port !== undefined ? ['--port', String(opts.port)] : []), ...(opts.host ? ['--host', opts.host] : [])];
  let announced = false;
  let changedSince = 0;
  const server = new DevServer({
    args: serveArgs, cwd: root, env: { ...process.env, [DEV_LOOP_VARIABLE]: '1' },
    onServing(line, url, startedMs) {
      if (announced) {
        say(`restarted in ${((Date.now() - changedSince) / 1000).toFixed(1)} s (the server's start ${(startedMs / 1000).toFixed(1)} s)`);
        return;
      }
      announced = true;
      server.pinPort(Number(new URL(url).port));
      watchDatabase();
      const app = /app at (http:\/\/\S+)/.exec(line)?.[1];
      void announce(url, app);
    },
    onExit(code, signal) {
      // Ctrl-C reaches the server too (the terminal signals the whole group): its end is then no news.
      if (!stopping) say(`the server stopped (${signal ?? `exit code ${code}`}); it starts again on the next change`);
    },
  });

  /** The banner: where everything is and how to begin, as this server serves it. */
  const announce = async (url: string, app: string | undefined) => {
    // The docs page needs an optional package (swagger-ui-dist); without it the banner names the document instead.
    const docsPage = await fetch(`${url}/docs`, { method: 'HEAD' }).then((r) => r.status !== 404, () => true);
    process.stdout.write([
      '',
      `restlayer dev: serving ${url}; each saved edit restarts it within seconds (Ctrl-C stops)`,
      docsPage ? `  API reference   ${url}/docs` : `  API reference   ${url}/openapi.json (a docs page at /docs needs swagger-ui-dist: npm install swagger-ui-dist)`,
      ...(app ? [`  browser app     ${app}`] : []),
      `  make a user     echo 'correct horse battery staple' | ${command} user add alice --role Administrator --password-stdin`,
      `  database        ${databaseText(config)}, kept across restarts; start it over with ${command} db reset`,
      '  type check      runs beside the server: its errors are printed here, the server runs the code as written',
      '',
    ].join('\n') + '\n');
  };

  // Restarts one at a time; changes arriving during one are taken by the next.
  const reasons = new Set<string>();
  let restarting: Promise<void> | undefined;
  const restart = (reason: string) => {
    reasons.add(reason);
    if (restarting) return;
    restarting = (async () => {
      while (reasons.size) {
        const why = [...reasons];
        reasons.clear();
        say(`restarting: ${why.length > 3 ? `${why.slice(0, 3).join(', ')} and ${why.length - 3} more` : why.join(', ')}`);
        await server.restart();
      }
    })().finally(() => (restarting = undefined));
  };

  // Source edits: transpiled at once, the server restarted when its JavaScript changed.
  const pending = new Set<string>();
  let settle: NodeJS.Timeout | undefined;
  const apply = () => {
    settle = undefined;
    const files = [...pending];
    pending.clear();
    for (const file of files) {
      try {
        if (existsSync(file)) {
          if (project.isProjectSource(file) && project.transpile(file)) restart(shown(root, file));
        } else if (project.removeOutputs(file)) restart(`${shown(root, file)} removed`);
      } catch (err) {
        say(`${shown(root, file)}: ${(err as Error).message}`);
      }
    }
  };
  const configFolder = join(root, 'config');
  const outDir = project.outDir;
  const noticed = (file: string) => {
    if (outDir && (file + sep).startsWith(outDir + sep)) return;
    if (file.split(sep).includes('node_modules')) return;
    if (file.startsWith(configFolder + sep)) {
      if (file.endsWith('.json')) {
        changedSince = Date.now();
        restart(shown(root, file));
      }
      return;
    }
    if (!/\.(c|m)?tsx?$/.test(file)) return;
    if (!pending.size) changedSince = Date.now();
    pending.add(file);
    clearTimeout(settle);
    settle = setTimeout(apply, SETTLE_MS);
  };
  const watchers: FSWatcher[] = [];
  for (const { folder, recursive } of project.watchedFolders) {
    if (!existsSync(folder)) continue;
    watchers.push(watch(folder, { recursive }, (_event, name) => name && noticed(resolve(folder, name.toString()))));
  }
  if (existsSync(configFolder)) watchers.push(watch(configFolder, (_event, name) => name && noticed(join(configFolder, name.toString()))));

  // An SQLite database put in place anew (restlayer db reset) is served at once: the server restarts onto it.
  const watchDatabase = () => {
    const path = config.Storage.Provider === 'sqlite' && config.Storage.Sqlite.Path !== ':memory:' ? resolve(root, config.Storage.Sqlite.Path) : undefined;
    if (!path || !existsSync(path)) return;
    const inode = (file: string) => (existsSync(file) ? statSync(file).ino : undefined);
    let served = inode(path);
    watchers.push(watch(dirname(path), (_event, name) => {
      if (name?.toString() !== basename(path)) return;
      const now = inode(path);
      if (now === served) return;
      served = now;
      if (now !== undefined) {
        changedSince = Date.now();
        restart('the database was reset');
      }
    }));
  };

  // The type check, beside.
  const checker: ChildProcess = fork(layerPath('cli', 'dev-checker.js'), [root, project.configFile], {
    cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    if (checker.pid) setPriority(checker.pid, CHECKER_NICENESS);
  } catch {
    /* a system that refuses it runs the check at the same priority: slower restarts, nothing worse */
  }
  let lastErrors: number | undefined;
  checker.on('message', (report: CheckerReport) => {
    if (report.type !== 'checked') return;
    if (report.errors !== lastErrors || report.errors) {
      say(report.errors ? `type check: ${report.errors} error(s) (above)` : 'type check: no errors');
    }
    lastErrors = report.errors;
    if (report.changed.length) {
      changedSince = Date.now();
      restart(`tsc's output of ${report.changed.map((f) => shown(root, f)).join(', ')}`);
    }
  });
  checker.on('exit', (code, signal) => {
    if (!stopping) say(`the type check ended (${signal ?? `exit code ${code}`}); edits still restart the server`);
  });

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearTimeout(settle);
    for (const w of watchers) w.close();
    if (checker.connected) checker.disconnect();
    checker.kill('SIGTERM');
    await restarting;
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  server.start();
}
