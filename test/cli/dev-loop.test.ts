import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callUrl, freePort } from '../support/http.js';
import { childEnv, projectRoot, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { serial } from '../support/stores.js';
import { until } from '../support/wait.js';

/** The service file the test edits (the customer's declaration), and the edit: the entity its 404 text names. */
const SERVICE = 'services/customer/customer.ts';
const BEFORE = "name: 'customer',";
const AFTER = "name: 'customer',\n  entity: 'Client',";
/** The one time bound a test of this project asserts (issue 42): an edit to a service is served within it. */
const SERVED_WITHIN_MS = 5000;

/**
 * A copy of this repository (its sources, its build with file times kept, its node_modules linked), so that the dev
 * loop runs on files the test may edit: what `npm run dev` does in a clone.
 */
function copyOfRepository(): string {
  const dir = makeTempDir('restlayer-dev-loop-');
  for (const entry of ['package.json', 'tsconfig.json', '.ci', 'bin', 'lib', 'services', 'routes', 'test', 'config', 'dist']) {
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true, preserveTimestamps: true, filter: (src) => !src.includes(`${join(projectRoot, 'test', 'package', 'consumer')}`) });
  }
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** `npm run dev` in `cwd`, in a process group of its own (npm, its shell, the loop, the server and the type check). */
function startDev(cwd: string, env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn('npm', ['run', 'dev'], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    output: () => out,
    exited,
    signal: (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* already gone */
      }
    },
  };
}

describe(serial('npm run dev: the edit → serve loop (issue 42)'), function () {
  this.timeout(300_000);
  let dir: string;
  let dev: ReturnType<typeof startDev>;
  let env: NodeJS.ProcessEnv;
  let api: string;
  let token: string;
  const password = 'correct horse battery staple';

  before(async () => {
    dir = copyOfRepository();
    env = childEnv({ NODE_ENV: 'development', PORT: String(await freePort()), Metrics__Port: '0', Authentication__PasswordHashCost: '10' });
    dev = startDev(dir, env);
    await until(() => /restlayer dev: serving (http:\S+);/.test(dev.output()), `the dev loop's banner; output:\n${dev.output()}`, 180_000);
  });
  after(async () => {
    dev?.signal('SIGTERM');
    const ended = await Promise.race([dev?.exited, new Promise((r) => setTimeout(() => r('timeout'), 15_000))]);
    if (ended === 'timeout') dev.signal('SIGKILL');
    removeTempDirs();
  });

  it('prints the URL, the docs page, the browser app and how to make a user, each of which works as printed', async () => {
    const out = dev.output();
    api = /restlayer dev: serving (http:\S+);/.exec(out)![1];
    const docs = /API reference\s+(\S+)/.exec(out)![1];
    const app = /browser app\s+(\S+)/.exec(out)![1];
    const makeUser = /make a user\s+(.+)/.exec(out)![1];
    expect(docs).to.equal(`${api}/docs`);
    expect((await fetch(docs)).status).to.equal(200);
    expect(await (await fetch(app)).text()).to.include('<html');
    expect(makeUser).to.equal(`echo '${password}' | npx restlayer user add alice --role Administrator --password-stdin`);
    const made = spawn('sh', ['-c', makeUser], { cwd: dir, env, stdio: 'inherit' });
    expect(await new Promise((resolve) => made.once('close', resolve))).to.equal(0);
    const login = await callUrl(`${api}/auth/jwt`, { method: 'POST', body: { userName: 'alice', password } });
    expect(login.status, login.text).to.equal(200);
    token = (login.body.result as { accessToken: string }).accessToken;
    expect(out).to.match(/database\s+data\/restlayer\.db \(SQLite\), kept across restarts; start it over with npx restlayer db reset/);
  });

  it(`serves an edit of a service within ${SERVED_WITHIN_MS / 1000} s, on the same database (the user and its token still work)`, async () => {
    const file = join(dir, SERVICE);
    const text = readFileSync(file, 'utf8');
    expect(text, `${SERVICE} must name its entity as ${BEFORE}: update this test with the service`).to.include(BEFORE);
    const notFound = async () => {
      try {
        return (await callUrl(`${api}/customer/999999`, { token })).body.messages?.[0]?.message;
      } catch {
        return undefined; // between two servers
      }
    };
    expect(await notFound()).to.equal('Customer with id 999999 not found.');
    const edited = Date.now();
    writeFileSync(file, text.replace(BEFORE, AFTER));
    await until(async () => (await notFound()) === 'Client with id 999999 not found.', 'the edit to be served', 60_000, 50);
    const servedMs = Date.now() - edited;
    process.stdout.write(`      (served ${(servedMs / 1000).toFixed(2)} s after the edit)\n`);
    expect(servedMs, `the edit was served after ${servedMs} ms`).to.be.below(SERVED_WITHIN_MS);
    // The development database and its keys stayed: the token from before the restart is still good.
    expect((await callUrl(`${api}/customer/999999`, { token })).status).to.equal(404);
    expect(dev.output()).to.match(/restlayer dev: restarting: services\/customer\/customer\.ts/);
  });

  it('runs the type check beside: a type error is printed (the server runs the code as written), and its fix clears it', async () => {
    const file = join(dir, SERVICE);
    const text = readFileSync(file, 'utf8');
    const from = dev.output().length;
    writeFileSync(file, `${text}\nexport const devLoopTypeError: number = 'not a number';\n`);
    await until(() => /error TS2322/.test(dev.output().slice(from)) && /type check: 1 error\(s\)/.test(dev.output().slice(from)), 'the type error to be reported', 180_000, 200);
    expect(dev.output().slice(from)).to.include('customer.ts');
    const again = dev.output().length;
    writeFileSync(file, text);
    await until(() => /type check: no errors/.test(dev.output().slice(again)), 'the type check to pass again', 180_000, 200);
  });

  it('restarts onto a database reset by `npx restlayer db reset --yes`: the users are gone, the sample data is back', async () => {
    const reset = spawn('sh', ['-c', 'npx restlayer db reset --yes'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    reset.stdout!.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
    expect(await new Promise((resolve) => reset.once('close', resolve))).to.equal(0);
    expect(said).to.match(/^data\/restlayer\.db \(SQLite\): made anew; schema made \(\d+ migrations\); empty database: loaded \d+ sample sales orders$/m);
    await until(async () => {
      try {
        return (await callUrl(`${api}/auth/jwt`, { method: 'POST', body: { userName: 'alice', password } })).status === 401;
      } catch {
        return false;
      }
    }, 'the server to serve the reset database', 60_000, 100);
    expect(dev.output()).to.include('restlayer dev: restarting: the database was reset');
  });

  it('stops on SIGTERM with its server and its type check', async () => {
    dev.signal('SIGTERM');
    await dev.exited;
    await until(async () => {
      try {
        await fetch(`${api}/health/live`);
        return false;
      } catch {
        return true;
      }
    }, 'the server to be gone', 15_000);
  });

  it('then npm start (serve) warns that the build is older than the sources, and only when a source changed', async () => {
    const serveEnv = { ...env, PORT: '0' };
    const current = await startServe(['--web'], { cwd: dir, env: serveEnv, cli: join(dir, 'dist', 'bin', 'restlayer.js') });
    current.child.kill('SIGTERM');
    await current.exited;
    expect(current.stderr()).to.not.include('older than its sources');
    // Touched without a change: not newer than the build.
    const file = join(dir, SERVICE);
    utimesSync(file, new Date(), new Date());
    const untouched = await startServe(['--web'], { cwd: dir, env: serveEnv, cli: join(dir, 'dist', 'bin', 'restlayer.js') });
    untouched.child.kill('SIGTERM');
    await untouched.exited;
    expect(untouched.stderr()).to.not.include('older than its sources');
    writeFileSync(file, readFileSync(file, 'utf8').replace(AFTER, BEFORE));
    const stale = await startServe(['--web'], { cwd: dir, env: serveEnv, cli: join(dir, 'dist', 'bin', 'restlayer.js') });
    stale.child.kill('SIGTERM');
    await stale.exited;
    expect(stale.stderr()).to.include('the build in dist is older than its sources (services/customer/customer.ts changed since): '
      + 'this serves the code as last built; build first (npm run build), or serve with npm run dev, which rebuilds on every change');
  });
});
