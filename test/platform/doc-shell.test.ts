import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../support/http.js';
import { codeBlocks, readDoc } from '../support/markdown.js';
import { requireRegistry } from '../support/packed-project.js';
import { type ServeProcess, childEnv, cliPath, killChildren, projectRoot, seededSqlite, startServe } from '../support/processes.js';
import { requireServices } from '../support/hooks.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * Every fenced shell block (```sh) of README.md and docs/*.md runs, so that none drifts from what the project does
 * (issue 42): this file runs README's First steps and getting-started.md against real servers; a block run by another
 * test is listed in ELSEWHERE with that test, and a block no test runs in LEFT_OUT with the reason. A new block in
 * neither fails the first test below until it gets a runner or a reason.
 *
 * Blocks run as pasted into one shell, with what a person fills in filled in the same way: `npx restlayer` in this
 * repository is its built CLI; a placeholder token (`ACCESS=eyJ...`, `REFRESH=q3X...`) is the accessToken and
 * refreshToken of the previous answer; the documented ports (8080, 3000) are free ones.
 */

/** A block is named by its file and its first command line (comments left out). */
const blockKey = (file: string, code: string) => `${file}: ${code.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('#'))}`;

/** Blocks another test runs, and which. */
const ELSEWHERE: Record<string, string> = {
  'README.md: Authentication__Variant=B AuthConfig__SigningKey="$(openssl rand -base64 48)" PORT=8081 Metrics__Port=0 \\':
    'test/platform/readme-shell.test.ts runs it as pasted after First steps',
  'README.md: npx restlayer init my-api     # a new folder: package.json, tsconfig, src/ with one example resource and its test, config/, a README':
    'the same commands as getting-started.md steps 1 to 3, which this file runs (a check below keeps them the same); test/package/starter.test.ts runs them from the packed package',
  "docs/services.md: npx restlayer new service purchase-order \\":
    'test/platform/doc-examples.test.ts runs both scaffold examples in one project; the generated tests of every field type run in test/package/packed.test.ts',
  'docs/services.md: npx restlayer new service invoice \\': 'test/platform/doc-examples.test.ts (with the purchase-order example, in one project)',
  'docs/services.md: node dist/main.js migration make            # writes services/NAME/migrations/0002-NAME-<fields>.ts, lists it in index.ts':
    'test/scaffold/migration-make.test.ts runs make, make --check and make --allow-drop in a project of its own, then serves the result on both stores',
  'docs/web.md: npm install && npm start      # builds the server and the app (when missing or stale) and runs `restlayer serve --web`':
    "test/platform/doc-examples.test.ts adds carol after README's alice in one database; npm install and npm start are test/package/npx.test.ts's (what they build) and test/cli/dev-loop.test.ts's (serving)",
  "docs/dependency.md: npm install && npm run build": 'test/package/packed.test.ts builds that project from the packed package, adds alice with its CLI, serves it and writes a note',
  'docs/tenancy.md: restlayer user add alice --role Clerk --attribute tenantId=acme':
    'test/access/tenancy-adoption.test.ts adds users with --attribute tenantId=… and serves them; test/package/grow.test.ts runs user set-attribute NAME tenantId VALUE',
};

/** Blocks no test runs, and why. */
const LEFT_OUT: Record<string, string> = {
  'README.md: npm install && npm start     # installs, builds, and serves the app at http://127.0.0.1:8080/ and the API under /api, on embedded SQLite with 12,000 sample orders':
    'npm test is the whole suite this file is part of; npm install, npm start and npm run dev are run by test/package/npx.test.ts (what they build) and test/cli/dev-loop.test.ts (what they serve)',
  'docs/testing.md: npm run build                                               # once after an edit; incremental, seconds':
    'it runs the suite (this file among it); test/support/run-suite.ts is what npm test runs',
  'docs/production.md: npx restlayer keys generate > ~/restlayer-prod-keys.sh':
    'a production start on the machine: keys into the home folder, a database named restlayer, Redis, tracing; keys generate, config check and serve with these settings are tested in test/platform/config-check.test.ts and test/scale',
  "docs/production.md: prometheus --config.file=prometheus.yml --storage.tsdb.path=/tmp/prom-data --web.listen-address=127.0.0.1:9090 &":
    'needs a Prometheus server; test/operations/prometheus.test.ts scrapes one when /usr/bin/prometheus is installed',
  'docs/production.md: export Storage__Provider=postgres': 'a deployment of several machines (db.internal, cache.internal); test/scale runs instances over one PostgreSQL and Redis',
  "docs/access.md: export Authorization__Roles__Auditor__0='customer.read'     # one entry of one role's list":
    'settings only; test/platform/config.test.ts reads roles from such variables',
};

/** Every ```sh block of the README and docs/, by key. */
function allBlocks(): Map<string, { file: string; code: string }> {
  const files = ['README.md', ...readdirSync(join(projectRoot, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
  const blocks = new Map<string, { file: string; code: string }>();
  for (const file of files) for (const { code } of codeBlocks(readDoc(file), 'sh')) blocks.set(blockKey(file, code), { file, code });
  return blocks;
}

/** The blocks of `file` that this file runs, in their order. */
const runHere = (file: string) => [...allBlocks().values()].filter((b) => b.file === file && !(blockKey(b.file, b.code) in ELSEWHERE) && !(blockKey(b.file, b.code) in LEFT_OUT));

/** Lines that fill in what the reader fills in: a placeholder token is taken from the previous answer (the wrapped curl keeps it). */
function fillPlaceholders(code: string): string {
  return code.split('\n').map((line) => line
    .replace(/\bACCESS=eyJ\.\.\./, `ACCESS=$(sed -E 's/.*"accessToken":"([^"]*)".*/\\1/' "$LAST")`)
    .replace(/\bREFRESH=q3X\.\.\./, `REFRESH=$(sed -E 's/.*"refreshToken":"([^"]*)".*/\\1/' "$LAST")`)).join('\n');
}

/**
 * A shell script running `blocks` in one bash as a terminal would: jobs in process groups of their own (`kill %1`
 * ends a server and its children), every curl answer printed on a line of its own and kept in $LAST, and on exit
 * every job still running ended.
 */
function script(blocks: string[], lastFile: string): string {
  return [
    'set -e -m',
    `LAST='${lastFile}'`,
    // The answer on a line of its own, kept; curl's own exit status (an `until curl -sf` loop waits on it). One write
    // of the answer and its newline: a dev loop running in the background writes its request log to the same output,
    // and a log line written between the two (CI, once) ended up on the answer's line.
    'curl() { local status=0; command curl "$@" > "$LAST" || status=$?; printf \'%s\\n\' "$(cat "$LAST")"; return $status; }',
    "trap 'for p in $(jobs -p); do kill -TERM -- -$p 2>/dev/null || true; done; wait' EXIT",
    ...blocks.map(fillPlaceholders),
    '',
  ].join('\n');
}

/**
 * The answers a block shows as comments (`# {"result":...}`), as patterns of a whole output line: `...` (and a token's
 * sample beginning before it, `eyJ...`) stands for anything.
 */
function documentedAnswers(code: string): RegExp[] {
  return code.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('# {')).map((l) => {
    const parts = l.slice(2).split(/[A-Za-z0-9]*\.\.\./).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(`^${parts.join('.*')}$`, 'm');
  });
}

interface ShellRun {
  code: number | null;
  out: string;
}

const shells = new Set<ChildProcess>();

/** Runs a script with bash in `cwd`, in a process group of its own (ended by after() if it hangs). */
function runShell(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<ShellRun> {
  const child = spawn('bash', ['-c', text], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  shells.add(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve) => child.once('close', (code) => {
    shells.delete(child);
    resolve({ code, out });
  }));
}

function endShells(): void {
  for (const child of shells) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

describe('docs: every shell block of README.md and docs/ is run by a test, or is listed with the reason it is not', () => {
  it('each block is run here, run by a named test, or left out with a reason; the lists name only blocks that exist', () => {
    const keys = [...allBlocks().keys()];
    for (const [key, test] of Object.entries(ELSEWHERE)) {
      expect(keys, 'a block ELSEWHERE names').to.include(key);
      const file = /test\/\S+\.test\.ts/.exec(test)?.[0];
      expect(file && existsSync(join(projectRoot, file)), `ELSEWHERE names an existing test: ${test}`).to.equal(true);
    }
    for (const key of Object.keys(LEFT_OUT)) expect(keys, 'a block LEFT_OUT names').to.include(key);
    const runners = new Set(['README.md', 'docs/getting-started.md']);
    const unaccounted = keys.filter((key) => !(key in ELSEWHERE) && !(key in LEFT_OUT) && !runners.has(key.slice(0, key.indexOf(': '))));
    expect(unaccounted, 'blocks no test runs and no reason leaves out: give each a runner here, or an entry in ELSEWHERE or LEFT_OUT').to.deep.equal([]);
  });

  it("README's project block is getting-started.md's steps 1 to 3, which run below", () => {
    const commands = (code: string) => code.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l && !l.startsWith('#'))
      .flatMap((l) => l.split(/\s*&&\s*/));
    const readme = [...allBlocks().values()].find((b) => b.file === 'README.md' && b.code.includes('restlayer init'))!;
    const started = runHere('docs/getting-started.md').flatMap((b) => commands(b.code));
    for (const command of commands(readme.code)) {
      expect(started.map((c) => c.replace(/^PORT=\d+ /, '').replace(/ &$/, '')), `README's ${command}`).to.include(command);
    }
  });
});

describeOneStore('docs: README "First steps" against a server with the sample data, as pasted', WHY_ONE_STORE.smoke, function () {
  this.timeout(180_000);
  let server: ServeProcess;
  let run: ShellRun;
  let answers: RegExp[];

  before(async () => {
    const dir = makeTempDir('restlayer-first-steps-');
    const port = await freePort();
    const env = childEnv({ NODE_ENV: undefined, Storage__Sqlite__Path: await seededSqlite(join(dir, 'readme.db')), Metrics__Port: '0', Authentication__PasswordHashCost: '10' });
    // What `npm start` serves (the README's blocks follow it): the API under /api, the browser app at /.
    server = await startServe(['--web', '--port', String(port)], { env, cwd: dir, timeoutMs: 60_000 });
    const blocks = runHere('README.md').map((b) => b.code.replaceAll('npx restlayer', `node '${cliPath}'`).replaceAll('8080', String(port)));
    answers = blocks.flatMap(documentedAnswers);
    run = await runShell(script(blocks, join(dir, 'last-answer.json')), dir, { ...env, DEV_LOG: join(dir, 'dev-loop.log') });
  });
  after(async () => {
    endShells();
    server?.child.kill('SIGTERM');
    await killChildren();
    removeTempDirs();
  });

  it('runs to its end: a user, a token pair, a list of orders, a refresh, a cookie login, a read, a PATCH and a logout', () => {
    expect(run.code, run.out).to.equal(0);
    expect(run.out).to.match(/^user alice created with roles Administrator$/m);
    expect(run.out).to.match(/^\{"result":\{"accessToken":"eyJ[^"]+","refreshToken":"[^"]+"\},"messages":\[\]\}$/m);
    expect(run.out).to.match(/^\{"result":\[\{"salesOrderId":\d+,.*"totalCount":\d+/m);
    expect(run.out.match(/"accessToken":"eyJ/g), 'the login and the refresh').to.have.length(2);
    expect(run.out).to.match(/^\{"result":\{"salesOrderId":43659,/m);
  });

  it('answers as the comments in its blocks show', () => {
    expect(answers.length, 'the answers the blocks show').to.be.at.least(3);
    for (const answer of answers) expect(run.out, `${String(answer)} in\n${run.out.slice(-8000)}`).to.match(answer);
  });
});

describeOneStore('docs: getting-started.md, every block in one shell, from nothing to a service of one\'s own on PostgreSQL', WHY_ONE_STORE.packed, function () {
  // npm install, three builds and test runs, two dev loops, on a machine shared with other work.
  this.timeout(20 * 60_000);
  let run: ShellRun | undefined;
  let database: string | undefined;
  let pgEnv: Record<string, string> = {};
  let answers: RegExp[] = [];

  before(async function () {
    const dir = makeTempDir('restlayer-getting-started-');
    await requireRegistry('getting-started.md', dir, () => this.skip());
    await requireServices(this, ['postgres'], 'getting-started.md (its last step is on PostgreSQL)');
    const port = await freePort();
    database = `getting_started_${randomBytes(4).toString('hex')}`;
    const admin = new URL(process.env.RESTLAYER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
    const url = new URL(admin.href);
    url.pathname = `/${database}`;
    // createdb and the project's settings reach the test's PostgreSQL, under a database name of this run.
    pgEnv = { PGHOST: admin.hostname, PGPORT: admin.port || '5432', PGUSER: decodeURIComponent(admin.username) };
    const env = childEnv({
      NODE_ENV: undefined, Metrics__Port: '0', Authentication__PasswordHashCost: '10', ...pgEnv, Storage__Postgres__Url: url.href,
      ...(process.env.RESTLAYER_TEST_PG_URL ? { RESTLAYER_TEST_PG_URL: process.env.RESTLAYER_TEST_PG_URL } : {}),
    });
    const blocks = runHere('docs/getting-started.md').map((b) => b.code
      // From a clone of restlayer, as the page says: the clone's CLI, and the project depends on the clone.
      .replace('npx restlayer init my-api', `node '${cliPath}' init my-api`)
      .replaceAll('3000', String(port))
      .replaceAll('createdb my_api', `createdb ${database}`)
      // The dev loop's type check, on its first pass, may write tsc's own output where the quick transpile differed and
      // restart the server once, seconds after it first answered: a person typing the next command is slower than
      // that, a script is not. Each dev loop's output also goes to a file, and the script waits for that first pass
      // and, when it restarts the server (said at once, with the pass), for the restart to be done (up to a minute),
      // then for the server to answer: a task created during that restart was lost twice in CI, when waiting 2 s for it
      // was not enough.
      .replaceAll('npm run dev &', 'npm run dev > >(tee "$DEV_LOG") 2>&1 &')
      .replaceAll('/health/ready > /dev/null; do sleep 1; done', '/health/ready > /dev/null; do sleep 1; done\nuntil grep -q "type check:" "$DEV_LOG"; do sleep 1; done\n'
        + 'sleep 1; if grep -q "restarting:" "$DEV_LOG"; then for i in $(seq 60); do grep -q "restarted in" "$DEV_LOG" && break; sleep 1; done; fi\n'
        + `until curl -sf localhost:${port}/health/ready > /dev/null; do sleep 1; done`));
    answers = blocks.flatMap(documentedAnswers);
    run = await runShell(script(blocks, join(dir, 'last-answer.json')), dir, { ...env, DEV_LOG: join(dir, 'dev-loop.log') });
  });
  after(async () => {
    endShells();
    await killChildren();
    if (database) {
      const drop = spawn('dropdb', ['--if-exists', '--force', database], { env: childEnv(pgEnv), stdio: 'ignore' });
      await new Promise((resolve) => drop.once('close', resolve));
    }
    removeTempDirs();
  });

  it('runs to its end: the project, its test, the dev loop, a task, a reset, a scaffolded service and its tests, PostgreSQL and its tests', () => {
    expect(run!.code, run!.out.slice(-6000)).to.equal(0);
    expect(run!.out).to.include('restlayer init: made my-api in my-api');
    expect(run!.out).to.match(/tasks \(sqlite\)/).and.match(/tasks \(postgres\)/);
    expect(run!.out).to.match(/^user alice created with roles Administrator$/m);
    expect(answers, 'the answers the page shows').to.have.length(2);
    // The answers come early in the run (the first dev loop): the output's start is where a miss shows.
    for (const answer of answers) expect(run!.out, `${String(answer)} in\n${run!.out.slice(0, 9000)}`).to.match(answer);
    expect(run!.out).to.include('the database answers');
    expect(run!.out).to.match(/invoice/).and.not.match(/\d+ failing/);
  });
});
