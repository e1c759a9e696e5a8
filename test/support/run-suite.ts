#!/usr/bin/env node
/**
 * The test run of `npm test`: every test on SQLite, then the suites declared with `describeStores` again on
 * PostgreSQL with Redis; on each store first the suites that run side by side (mocha --parallel, one worker
 * process per job, one more than the cores), then those kept apart from them (tagged @apart: they inject faults and
 * wait, two at a time), then those tagged @serial (they measure time or memory), one at a time (test/support/run-groups.ts).
 *
 *   node dist/test/support/run-suite.js [--store sqlite|postgres|all] [--jobs N] [--apart-jobs N] [path ...]
 *
 * A path narrows the run to a file or folder, given as source or build (`test/cli`, `test/cli/user.test.ts`,
 * `dist/test/cli/user.test.js`). Each phase prints its time; the run exits non-zero when any phase failed.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVERY_STORE, endTestRun, startTestRun } from 'restlayer/testing';
import { APART, SERIAL } from './run-groups.js';

type Store = 'sqlite' | 'postgres';

/** The project folder (this file runs as dist/test/support/run-suite.js). */
const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

function usage(problem: string): never {
  process.stderr.write(`run-suite: ${problem}\nusage: node dist/test/support/run-suite.js [--store sqlite|postgres|all] [--jobs N] [--apart-jobs N] [path ...]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let stores: Store[] = ['sqlite', 'postgres'];
// Workers wait on child processes, sockets and timers much of the time: one more than the cores keeps them busy.
let jobs = availableParallelism() + 1;
// Suites kept apart wait on outages, timers and child processes far more than they compute: two at a time.
let apartJobs = 2;
const paths: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--store') {
    const store = args[++i];
    if (store === 'all') stores = ['sqlite', 'postgres'];
    else if (store === 'sqlite' || store === 'postgres') stores = [store];
    else usage(`--store takes sqlite, postgres or all, not ${store ?? 'nothing'}`);
  } else if (arg === '--jobs' || arg === '--apart-jobs') {
    const value = Number(args[++i]);
    if (!Number.isInteger(value) || value < 1) usage(`${arg} takes a whole number of at least 1`);
    if (arg === '--jobs') jobs = value;
    else apartJobs = value;
  } else if (arg.startsWith('-')) usage(`unknown option ${arg}`);
  else paths.push(arg);
}

/** The built test files below `dir`. */
function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return dir.endsWith('.test.js') ? [dir] : [];
  return readdirSync(dir).flatMap((name) => testFiles(join(dir, name)));
}

/** A path as given (source or build, file or folder) as the build's path. */
function built(path: string): string {
  const rel = relative(projectRoot, resolve(path));
  const inDist = rel.startsWith('dist/') ? rel : join('dist', rel.replace(/\.ts$/, '.js'));
  const full = join(projectRoot, inDist);
  if (!existsSync(full)) usage(`${path}: no such test file or folder in the build (${inDist}); run npm run build first`);
  return full;
}

const files = (paths.length ? paths.map(built) : [join(projectRoot, 'dist', 'lib'), join(projectRoot, 'dist', 'test')])
  .flatMap(testFiles).sort();
// A file that names no tag (nor the declaration giving it) is not even loaded by a phase that selects by it.
const NAMES_EVERY_STORE = new RegExp(`\\bdescribeStores\\)?\\(|${EVERY_STORE}\\b`);
/** A tag, or the function that gives it (`apart(`, `serial(`), as the built file names it. */
const naming = (tag: string) => {
  const named = new RegExp(`\\b${tag.slice(1)}\\)?\\(|${tag}\\b`);
  return files.filter((f) => named.test(readFileSync(f, 'utf8')));
};

interface Phase {
  name: string;
  store: Store;
  /** How many files run at once (mocha's parallel workers when more than one). */
  jobs: number;
  grep: string;
  files: string[];
}

/** A regular expression matching titles that carry every tag of `tags` and none of `without`. */
const titled = (tags: string[], without: string[] = []) =>
  `^${without.map((t) => `(?!.*${t})`).join('')}${tags.map((t) => `(?=.*${t})`).join('')}`;

const phases: Phase[] = stores.flatMap((store): Phase[] => {
  // SQLite runs every suite; PostgreSQL those declared for every store.
  const ofStore = store === 'sqlite' ? files : files.filter((f) => NAMES_EVERY_STORE.test(readFileSync(f, 'utf8')));
  const storeTag = store === 'sqlite' ? [] : [EVERY_STORE];
  const name = store === 'sqlite' ? 'sqlite' : 'postgres + redis';
  const apartFiles = naming(APART).filter((f) => ofStore.includes(f));
  const serialFiles = naming(SERIAL).filter((f) => ofStore.includes(f));
  return [
    { name, store, jobs, grep: titled(storeTag, [APART, SERIAL]), files: ofStore },
    { name: `${name}, apart`, store, jobs: apartJobs, grep: titled([...storeTag, APART]), files: apartFiles },
    { name: `${name}, serial`, store, jobs: 1, grep: titled([...storeTag, SERIAL]), files: serialFiles },
  ];
});

const mocha = join(projectRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
// This process owns the run: every mocha below shares its store templates, removed when the run ends.
startTestRun();
const work = mkdtempSync(join(tmpdir(), 'restlayer-run-'));
// Each file's time, written by the root hooks (test/support/hooks.ts) of the parallel workers, and here for serial files.
const times = join(work, 'times.jsonl');
const took: string[] = [];
let failed = false;

/**
 * What each failed mocha printed from its "N failing" line on, repeated when the run ends: CI keeps only the tail of
 * a long log, and the failures of the first phase would scroll out of it behind the phases after.
 */
const failures: string[] = [];
/** The part of a mocha report kept for the end: its failures, each cut to its first lines. */
const FAILURE_LINES = 120;

/** Runs mocha on `files`, its output passed through as it comes; true when every test passed. */
async function runMocha(phase: Phase, files: string[]): Promise<boolean> {
  const env: NodeJS.ProcessEnv = { ...process.env, RESTLAYER_TEST_TIMES: times };
  if (phase.store === 'postgres') Object.assign(env, { RESTLAYER_TEST_STORAGE: 'postgres', RESTLAYER_TEST_REDIS: 'true' });
  else for (const name of ['RESTLAYER_TEST_STORAGE', 'RESTLAYER_TEST_REDIS']) delete env[name];
  const mochaArgs = [
    ...(phase.jobs > 1 ? ['--parallel', '--jobs', String(phase.jobs)] : []),
    '--grep', phase.grep,
    ...files.map((f) => relative(projectRoot, f)),
  ];
  const child = spawn(process.execPath, [mocha, ...mochaArgs], { cwd: projectRoot, env, stdio: ['inherit', 'pipe', 'inherit'] });
  let report = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    report += chunk.toString('utf8');
    // Only the report's end matters once it is long: keep the last megabyte (the failures come last).
    if (report.length > 2 ** 21) report = report.slice(-(2 ** 20));
  });
  const code = await new Promise<number | null>((done) => child.on('close', (status) => done(status)));
  if (code === 0) return true;
  const plain = report.replace(/\x1b\[[0-9;]*m/g, '');
  const at = plain.search(/^ {2}\d+ failing$/m);
  const section = at >= 0 ? plain.slice(at).split('\n') : [`mocha exited with ${code ?? 'a signal'} before reporting failures`];
  failures.push(`-- ${phase.name}: ${files.length === 1 ? relative(projectRoot, files[0]) : `${files.length} files`}\n${
    section.slice(0, FAILURE_LINES).join('\n')}${section.length > FAILURE_LINES ? `\n  … ${section.length - FAILURE_LINES} more lines in its report above` : ''}`);
  return false;
}

try {
  for (const phase of phases) {
    if (!phase.files.length) continue;
    process.stdout.write(`\n== ${phase.name}: ${phase.files.length} file(s), ${phase.jobs > 1 ? `${phase.jobs} at a time` : 'one at a time'}\n`);
    const started = performance.now();
    let passed = true;
    if (phase.jobs > 1) passed = await runMocha(phase, phase.files);
    else {
      // One mocha a file: the file's time is this run's (the root hooks time files only in parallel workers).
      for (const file of phase.files) {
        const fileStarted = performance.now();
        passed = (await runMocha(phase, [file])) && passed;
        appendFileSync(times, `${JSON.stringify({ file, ms: Math.round(performance.now() - fileStarted), store: phase.store })}\n`);
      }
    }
    took.push(`${phase.name} ${((performance.now() - started) / 1000).toFixed(0)} s${passed ? '' : ' (failed)'}`);
    if (!passed) failed = true;
  }
} finally {
  await endTestRun();
}

const slowest = existsSync(times)
  ? readFileSync(times, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { file: string; ms: number; store: Store })
    .sort((a, b) => b.ms - a.ms).slice(0, 10)
  : [];
rmSync(work, { recursive: true, force: true });
if (slowest.length) {
  process.stdout.write(`\nrun-suite: the slowest files\n${slowest.map((t) => `  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${relative(projectRoot, t.file)} (${t.store})`).join('\n')}\n`);
}
if (failures.length) process.stdout.write(`\nrun-suite: what failed, again\n${failures.join('\n\n')}\n`);
process.stdout.write(`\nrun-suite: ${took.join(', ')}\n`);
process.exit(failed ? 1 : 0);
