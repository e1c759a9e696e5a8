import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { childEnv, killChildren, runCli, startServe } from '../support/processes.js';
import { describeStores } from '../support/stores.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { createTestDatabase, testProvider } from '../support/test-stores.js';

const PASSWORD = 'adoption-password-1';

/**
 * Contract part 12, turning tenancy on for an existing database (docs/tenancy.md), with `restlayer` processes on one
 * SQLite file: a CLI command that is the first to start with tenancy on says what it adopted (stderr), and records
 * made while tenancy was off take the tenant of the record they refer to — an order of another tenant's customer
 * made with tenancy off again joins that customer's tenant, not the default one.
 */
describe('tenancy: turning it on for an existing database', function () {
  this.timeout(120_000);
  let env: (tenancy: boolean) => NodeJS.ProcessEnv;
  before(() => {
    const path = join(makeTempDir('restlayer-adoption-'), 'app.db');
    env = (tenancy) => childEnv({ Storage__Sqlite__Path: path, Tenancy__Enabled: String(tenancy), Tenancy__DefaultTenant: 'acme', Metrics__Port: '0', Authentication__PasswordHashCost: '10', Log__Level: 'info' });
  });
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  const addUser = async (name: string, tenancy: boolean, tenantId?: string) => {
    const args = ['user', 'add', name, '--role', 'Administrator', '--password-stdin', ...(tenantId ? ['--attribute', `tenantId=${tenantId}`] : [])];
    return runCli(args, { env: env(tenancy), input: PASSWORD, timeoutMs: 60_000 });
  };
  /** Serves the file with tenancy on or off, and runs `fn` with a fetch of the API as a user. */
  async function served(tenancy: boolean, fn: (as: (user: string) => Promise<(path: string, body?: unknown) => Promise<{ status: number; body: { result?: unknown } }>>, stderr: () => string) => Promise<void>) {
    const server = await startServe(['--port', '0'], { env: env(tenancy), timeoutMs: 60_000 });
    try {
      await fn(async (user) => {
        const login = await fetch(`${server.url}/auth/jwt`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userName: user, password: PASSWORD }) });
        expect(login.status, user).to.equal(200);
        const { accessToken } = ((await login.json()) as { result: { accessToken: string } }).result;
        return async (path, body) => {
          const reply = await fetch(`${server.url}${path}`, {
            method: body === undefined ? 'GET' : 'POST', headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return { status: reply.status, body: (await reply.json()) as { result?: unknown } };
        };
      }, server.stderr);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }

  it("the first process with tenancy on may be a CLI command: it says on stderr what it adopted, and the records are the default tenant's", async () => {
    const first = await addUser('olga', false);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.not.include('tenancy');
    const second = await addUser('ann', true, 'acme');
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stderr).to.match(/restlayer: tenancy: \d+ sales_order record\(s\) created while tenancy was off now belong to tenant 'acme'/);
    expect(second.stderr).to.match(/restlayer: tenancy: \d+ index\(es\) of customer led by tenant_id made/);
    // Once: the next command has nothing to adopt.
    const third = await addUser('gus', true, 'globex');
    expect([third.code, third.stderr]).to.deep.equal([0, '']);
    await served(true, async (as) => {
      const ann = await as('ann');
      expect(((await ann('/customer?take=1&getTotalCount=true')).body as { totalCount: number }).totalCount).to.be.greaterThan(100);
      const gus = await as('gus');
      expect(((await gus('/customer?take=1&getTotalCount=true')).body as { totalCount: number }).totalCount).to.equal(0);
    });
  });

  it('an order made while tenancy was off for a customer of a tenant joins that tenant when tenancy is on again', async () => {
    let customerId = 0;
    await served(true, async (as) => {
      const created = await (await as('gus'))('/customer', { name: 'Globex Customer' });
      expect(created.status).to.equal(201);
      customerId = (created.body.result as { customerId: number }).customerId;
    });
    let orderId = 0;
    await served(false, async (as) => {
      const order = await (await as('olga'))('/sales-order', { customerId, status: 1, onlineOrderFlag: true });
      expect(order.status, JSON.stringify(order.body)).to.equal(201);
      orderId = (order.body.result as { salesOrderId: number }).salesOrderId;
    });
    await served(true, async (as, stderr) => {
      expect((await (await as('gus'))(`/sales-order/${orderId}`)).status).to.equal(200);
      expect((await (await as('ann'))(`/sales-order/${orderId}`)).status).to.equal(404);
      expect(stderr()).to.include('1 sales_order record(s) created while tenancy was off now belong to the tenant of the customer they refer to');
      // The start says that tenancy is on.
      expect(stderr()).to.match(/"tenancy":true,"msg":"restlayer listening on/);
    });
  });
});

/**
 * PostgreSQL's side of turning tenancy on and off (lib/storage/tenant-indexes.ts): its list indexes are led by the
 * tenant in place of their own, so its planner weighs no more indexes than before, and are made as their migrations
 * made them again when a server starts with tenancy off; a CLI command with tenancy off (its environment may lack
 * the servers' setting) leaves them. Processes on a PostgreSQL database of the sample.
 */
describeStores(`tenancy: PostgreSQL's tenant-led indexes, on and off again (${testProvider})`, function () {
  this.timeout(120_000);
  after(() => killChildren());

  it('a process with tenancy on leads the list indexes with the tenant in their place; a server with tenancy off makes them as they were, a CLI command does not; each says so once', async function () {
    if (testProvider !== 'postgres') this.skip();
    const database = await createTestDatabase(true);
    const client = new pg.Client({ connectionString: database.url });
    try {
      await client.connect();
      const totalDue = async () => (await client.query<{ definition: string }>("select indexdef as definition from pg_indexes where indexname = 'ix_sales_order_total_due'")).rows[0]?.definition;
      const env = (tenancy: boolean) => childEnv({
        Storage__Provider: 'postgres', Storage__Postgres__Url: database.url, Tenancy__Enabled: String(tenancy), Tenancy__DefaultTenant: 'acme',
        Metrics__Port: '0', Authentication__PasswordHashCost: '10', Log__Level: 'info',
      });
      const add = (name: string, tenancy: boolean) => runCli(['user', 'add', name, '--role', 'Administrator', '--password-stdin'], { env: env(tenancy), input: PASSWORD, timeoutMs: 60_000 });
      const serveOff = async () => {
        const server = await startServe(['--port', '0'], { env: env(false), timeoutMs: 60_000 });
        server.child.kill('SIGTERM');
        await server.exited;
        return server.stderr();
      };
      const on = await add('ann', true);
      expect(on.code, on.stderr).to.equal(0);
      expect(on.stderr).to.match(/restlayer: tenancy: \d+ index\(es\) of sales_order now led by tenant_id, in place of their own \(made again when tenancy is off\): .*\bix_sales_order_total_due\b/);
      expect(on.stderr).to.match(/restlayer: tenancy: \d+ index\(es\) of customer now led by tenant_id, in place of their own .*\bix_customer_name\b/);
      expect(await totalDue()).to.match(/\(tenant_id, total_due, sales_order_id\)/);
      const cli = await add('bob', false);
      expect([cli.code, cli.stderr]).to.deep.equal([0, '']);
      expect(await totalDue()).to.match(/\(tenant_id, total_due, sales_order_id\)/);
      expect(await serveOff()).to.match(/tenancy is off: \d+ index\(es\) of sales_order made without tenant_id again: [^"]*\bix_sales_order_total_due\b/);
      expect(await totalDue()).to.match(/\(total_due, sales_order_id\) INCLUDE \(deleted_at\)$/);
      expect(await serveOff()).to.not.include('tenancy is off');
    } finally {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  });
});
