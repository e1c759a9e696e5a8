import { expect } from 'chai';
import { until } from '../support/wait.js';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { callUrl } from '../support/http.js';
import { type ServeProcess, childEnv, killChildren, runCli, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';

/** The pids of a process's children (the workers of a primary). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}


describe('serve --workers N (one machine, no Redis)', function () {
  this.timeout(60_000);
  let dir: string;
  let db: string;
  let env: NodeJS.ProcessEnv;
  let server: ServeProcess;

  before(async () => {
    dir = makeTempDir();
    db = join(dir, 'workers.db');
    // No signing keys configured: the primary generates them once and hands them to every worker.
    env = childEnv({ Storage__Sqlite__Path: db, Authentication__PasswordHashCost: '10', Authentication__Throttle__AccountFailures: '3', Log__Level: 'info' });
    const add = await runCli(['user', 'add', 'olga', '--role', 'Administrator', '--password', 'olga-password-1'], { env, cwd: dir });
    expect(add.code, add.stderr).to.equal(0);
    server = await startServe(['--workers', '3', '--host', '127.0.0.1', '--port', '0'], { env, cwd: dir });
    await until(() => childrenOf(server.child.pid!).length === 3, 'three workers');
    await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 3, 'three workers serving');
  });
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  const login = () => callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: 'olga', password: 'olga-password-1' } });

  it('every worker accepts tokens another worker issued (one key for all)', async () => {
    const { accessToken } = (await login()).body.result as { accessToken: string };
    const replies = await Promise.all(Array.from({ length: 24 }, () => callUrl(`${server.url}/sales-order/43659`, { token: accessToken })));
    expect(replies.map((r) => r.status)).to.deep.equal(Array(24).fill(200));
  });

  it('login throttling is shared by the workers', async () => {
    for (let i = 0; i < 3; i++) await callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: 'pete', password: `wrong-${i}` } });
    const replies = await Promise.all(Array.from({ length: 6 }, () => callUrl(`${server.url}/auth/jwt`, { method: 'POST', body: { userName: 'pete', password: 'again' } })));
    expect(replies.map((r) => r.status)).to.deep.equal(Array(6).fill(429));
  });

  it('a lookup flush on one worker reaches every worker', async () => {
    const { accessToken } = (await login()).body.result as { accessToken: string };
    const texts = async () => Promise.all(Array.from({ length: 12 }, async () =>
      ((await callUrl(`${server.url}/lookup-table/sales-order-status`, { token: accessToken })).body.result.data as { id: number; text: string }[])[0].text));
    expect(new Set(await texts())).to.deep.equal(new Set(['In process']));
    const sqlite = new Database(db);
    sqlite.prepare(`update sales_order_status set name = 'Being processed' where status_id = 1`).run();
    sqlite.close();
    expect((await callUrl(`${server.url}/lookup-table/sales-order-status`, { method: 'DELETE', token: accessToken })).status).to.equal(200);
    await until(async () => (await texts()).every((t) => t === 'Being processed'), 'every worker to reload the table', 5_000);
  });

  it('a worker that dies is replaced, and the server keeps answering', async () => {
    const before = childrenOf(server.child.pid!);
    process.kill(before[0], 'SIGKILL');
    await server.waitForStderr(/worker died; starting a new one/);
    await until(() => {
      const now = childrenOf(server.child.pid!);
      return now.length === 3 && !now.includes(before[0]);
    }, 'a replacement worker');
    const replies = await Promise.all(Array.from({ length: 12 }, () => callUrl(`${server.url}/health/live`)));
    expect(replies.map((r) => r.status)).to.deep.equal(Array(12).fill(200));
  });

  it('SIGTERM drains every worker and the primary exits 0', async () => {
    const workers = childrenOf(server.child.pid!);
    server.child.kill('SIGTERM');
    expect(await server.exited).to.deep.equal({ code: 0, signal: null });
    for (const pid of workers) expect(() => process.kill(pid, 0), `worker ${pid} gone`).to.throw();
  });
});
