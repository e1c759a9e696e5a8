import { expect } from 'chai';
import { join } from 'node:path';
import { attributeCliPath } from '../support/api.js';
import { deployment, type Deployment } from '../support/cluster-env.js';
import { requireServices } from '../support/hooks.js';
import { type UrlReply, callUrl } from '../support/http.js';
import { killChildren, runCli, seededSqlite, type ServeProcess, sqliteServeEnv, startServe } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { dropRedisKeys } from '../support/test-stores.js';
import { newKey } from '../support/tokens.js';
import { until } from '../support/wait.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const PARALLEL = 10;
const RECHECK = { Authentication__SessionRecheckSeconds: '1', Authentication__PasswordHashCost: '10' };

/**
 * `serve --workers 2`: every worker caches users' credential states and attributes on its own, so an attribute the
 * CLI changes must reach each within SessionRecheckSeconds (issue 24 item 3), over one SQLite file and over
 * PostgreSQL + Redis alike. The application served is the sample plus the caller-attributes probe route.
 */
for (const store of ['sqlite', 'postgres'] as const) {
  describeOneStore(`serve --workers 2 (${store}): an attribute the CLI changes reaches every worker`, WHY_ONE_STORE.scale, function () {
    this.timeout(120_000);
    let env: NodeJS.ProcessEnv;
    let d: Deployment | undefined;
    let server: ServeProcess;
    const cli = (args: string[]) => runCli(['user', ...args], { env, cli: attributeCliPath });

    before(async function () {
      if (store === 'postgres') {
        await requireServices(this, ['postgres', 'redis'], 'the workers test on PostgreSQL + Redis');
        d = await deployment({ ...RECHECK, Log__Level: 'info' });
        env = d.env;
      } else {
        env = sqliteServeEnv(await seededSqlite(join(makeTempDir(), 'attributes.db')), newKey(), RECHECK);
      }
      const add = await cli(['add', 'wes', '--role', 'Clerk', '--attribute', 'salesPersonId=279', '--password', 'wes-password-1']);
      expect(add.code, add.stderr).to.equal(0);
      const sales = await cli(['add', 'sue', '--role', 'SalesPerson', '--attribute', 'salesPersonId=279', '--password', 'sue-password-1']);
      expect(sales.code, sales.stderr).to.equal(0);
      server = await startServe(['--workers', '2', '--host', '127.0.0.1', '--port', '0'], { env, cli: attributeCliPath });
      await until(() => (server.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'two workers serving');
    });
    after(async () => {
      await killChildren();
      removeTempDirs();
      if (d) {
        await d.drop();
        await dropRedisKeys(d.prefix);
      }
    });

    /** The same call PARALLEL times at once: new connections, which the primary hands to the workers in turn. */
    const burst = (init: { token?: string; cookie?: string }) => Promise.all(Array.from({ length: PARALLEL }, () =>
      callUrl(`${server.url}/caller-attributes`, { token: init.token, headers: init.cookie ? { Cookie: init.cookie } : {} })));
    const seen = (replies: UrlReply[]) => replies.map((r) => (r.status === 200 ? (r.body.result as { attributes: Record<string, string> }).attributes.salesPersonId ?? '-' : `status ${r.status}`));

    it('set-attribute and remove-attribute: every worker hands the new value to bearer and cookie callers, whose sessions go on', async () => {
      const login = (path: string) => callUrl(`${server.url}${path}`, { method: 'POST', body: { userName: 'wes', password: 'wes-password-1' } });
      const token = ((await login('/auth/jwt')).body.result as { accessToken: string }).accessToken;
      const cookie = (await login('/auth/cookie')).headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      // Every worker has the user cached, with the old value, before the command runs.
      expect(seen([...await burst({ token }), ...await burst({ cookie })])).to.deep.equal(Array(2 * PARALLEL).fill('279'));

      const set = await cli(['set-attribute', 'wes', 'salesPersonId', '280']);
      expect(set.code, set.stderr).to.equal(0);
      await until(async () => seen([...await burst({ token }), ...await burst({ cookie })]).every((v) => v === '280'),
        'every worker to hand out salesPersonId 280', 10_000, 100);

      const removed = await cli(['remove-attribute', 'wes', 'salesPersonId']);
      expect(removed.code, removed.stderr).to.equal(0);
      await until(async () => seen([...await burst({ token }), ...await burst({ cookie })]).every((v) => v === '-'),
        'every worker to hand out no salesPersonId', 10_000, 100);
    });

    it('a SalesPerson\'s record scope follows set-attribute on every worker: the list then holds the new sales person\'s orders only', async () => {
      // The sample application itself (the probe application serves only its probe route), over the same store.
      const sample = await startServe(['--workers', '2', '--host', '127.0.0.1', '--port', '0'], { env });
      await until(() => (sample.stderr().match(/restlayer listening on/g) ?? []).length >= 2, 'two workers of the sample serving');
      const login = await callUrl(`${sample.url}/auth/jwt`, { method: 'POST', body: { userName: 'sue', password: 'sue-password-1' } });
      const token = (login.body.result as { accessToken: string }).accessToken;
      /** The sales people of each reply's orders (one list per reply, PARALLEL replies across the workers). */
      const lists = async () => (await Promise.all(Array.from({ length: PARALLEL }, () => callUrl(`${sample.url}/sales-order?take=30`, { token }))))
        .map((r) => (r.status === 200 ? [...new Set((r.body.result as { salesPersonId?: number }[]).map((o) => o.salesPersonId))].join(',') : `status ${r.status}`));
      expect(await lists()).to.deep.equal(Array(PARALLEL).fill('279'));

      const set = await cli(['set-attribute', 'sue', 'salesPersonId', '280']);
      expect(set.code, set.stderr).to.equal(0);
      await until(async () => (await lists()).every((v) => v === '280'), 'every worker to list sales person 280\'s orders', 10_000, 100);

      const removed = await cli(['remove-attribute', 'sue', 'salesPersonId']);
      expect(removed.code, removed.stderr).to.equal(0);
      await until(async () => (await lists()).every((v) => v === ''), 'every worker to list no orders', 10_000, 100);
    });
  });
}
