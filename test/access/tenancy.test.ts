import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { expect } from 'chai';
import { sql, withErrorScope } from 'restlayer';
import { expectError, expectOk } from '../support/api.js';
import { type Reply, TEST_AUDIENCE, type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { testProvider } from '../support/test-stores.js';
import { FAST_HASH } from '../support/users.js';
import { expectNotFound, listOf } from './support.js';

const PARTNER_ISSUER = 'partner-idp';
const PARTNER_KEY = randomBytes(32);

/**
 * Contract part 12 over HTTP, tenancy on: two tenants with the same account numbers whose records never meet (every
 * route of customers and orders, lists through every kind of criterion, counts, cursors, CSV, history, references);
 * the caller's tenant from the attribute tenantId at login and refresh, or an external token's tid claim alone; 403
 * without one; a SalesPerson's scope inside a tenant; the sample's records, made before, adopted by DefaultTenant.
 */
describeStores(`tenancy (${testProvider})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let acme: string;
  let globex: string;
  const tokenOf = (tid: string | undefined, sub = 'ann', role = ['Administrator']) => server.token({ sub, name: sub, role, ...(tid ? { tid } : {}) });
  const as = (token: string, path: string, init: Parameters<TestServer['call']>[1] = {}) => server.call(path, { ...init, token });
  const patch = { 'Content-Type': 'application/merge-patch+json' };
  /** The server's log messages that include `text`. */
  const logged = (text: string) => server.logs.map((l) => String(l.msg ?? l.message)).filter((m) => m.includes(text));

  before(async () => {
    server = await startTestServer({
      config: { ...FAST_HASH, Tenancy: { Enabled: true, DefaultTenant: 'acme' } },
      env: {
        Authentication__Schemes__Bearer__SigningKeys__1__Issuer: PARTNER_ISSUER,
        Authentication__Schemes__Bearer__SigningKeys__1__Value: PARTNER_KEY.toString('base64'),
      },
    });
    acme = tokenOf('acme');
    globex = tokenOf('globex');
  });
  after(async () => server?.stop());

  const fresh = (tag: string) => `${tag}${randomBytes(3).toString('hex')}`;
  const createCustomer = async (token: string, body: Record<string, unknown>) => {
    const reply = await as(token, '/customer', { method: 'POST', body });
    expectOk(reply, 201);
    return reply.body.result.customerId as number;
  };
  const total = async (token: string, path: string) => listOf(await as(token, `${path}${path.includes('?') ? '&' : '?'}getTotalCount=true&take=1`)).totalCount!;

  it('the records made before tenancy was on (the sample) belong to Tenancy:DefaultTenant; another tenant starts empty', async () => {
    expect(await total(acme, '/customer')).to.be.greaterThan(100);
    expect(await total(acme, '/sales-order')).to.be.greaterThan(100);
    expect(await total(globex, '/customer')).to.equal(0);
    expect(await total(globex, '/sales-order')).to.equal(0);
    expect(logged("now belong to tenant 'acme'")).to.not.be.empty;
    // And the list indexes got their tenant-led twins, with an index of (tenant, key) for lists in key order.
    const made = logged('led by tenant_id made');
    expect(made.join('\n')).to.include('ix_sales_order_tenant_key').and.include('ix_customer_tenant_key').and.include('ix_sales_order_status_tenant');
    // An index whose migration placed the tenant after its equality columns (0012-tenant-probe) gets none.
    expect(made.join('\n')).to.not.include('ix_sales_order_sales_person_customer_tenant');
    const indexes = await server.infrastructure.storage.dialect.indexDefinitions(server.infrastructure.storage.db, 'sales_order');
    expect(indexes.find((i) => i.name === 'ix_sales_order_sales_person_customer')?.definition).to.match(/\(\s*"?sales_person_id"?,\s*"?customer_id"?,\s*"?tenant_id"?/);
    if (testProvider === 'postgres') {
      // PostgreSQL: the twins took their indexes' places, so its planner weighs 26 indexes of the orders, not 40. Without
      // the tenant stay the key's, the unique number's, and one led by each foreign key's or reference's column (a
      // customer's delete looks its orders up by it, with no tenant).
      expect(logged('in place of their own').join('\n')).to.include('ix_sales_order_total_due').and.include('ix_customer_name_folded');
      expect(indexes.find((i) => i.name === 'ix_sales_order_total_due')?.definition).to.match(/\(tenant_id, total_due, sales_order_id\)/);
      expect(indexes.filter((i) => !i.definition.includes('tenant_id')).map((i) => i.name)).to.have.members([
        'sales_order_pkey', 'ux_sales_order_number', 'ix_sales_order_customer_id', 'ix_sales_order_status', 'ix_sales_order_territory_id', 'ix_sales_order_sales_person_id',
      ]);
      expect(indexes).to.have.length(26);
    }
  });

  it('the tenant column compares byte by byte: PostgreSQL\'s in collation "C" (unless the database\'s is C or POSIX), said once in the log; SQLite\'s texts do already', async () => {
    const { db } = server.infrastructure.storage;
    const said = logged('now compares byte by byte');
    if (testProvider === 'postgres') {
      // A database made with collation C or POSIX compares bytes already: its columns stay as they are, and nothing is said.
      const { rows: [{ database }] } = await sql<{ database: string }>`select datcollate as database from pg_database where datname = current_database()`.execute(db);
      const bytewiseAlready = ['C', 'POSIX'].includes(database);
      const { rows } = await sql<{ table: string; collation: string }>`select a.attrelid::regclass::text as table, c.collname as collation
        from pg_attribute a join pg_collation c on c.oid = a.attcollation
        where a.attrelid in ('sales_order'::regclass, 'customer'::regclass) and a.attname = 'tenant_id' order by 1`.execute(db);
      const expected = bytewiseAlready ? 'default' : 'C';
      expect(rows).to.deep.equal([{ table: 'customer', collation: expected }, { table: 'sales_order', collation: expected }]);
      expect(said).to.have.length(bytewiseAlready ? 0 : 2);
    } else {
      expect(said).to.deep.equal([]);
    }
  });

  it('two tenants each have a customer with account number A-1; within one it is a 409; tenantId in a body is unknown', async () => {
    const account = fresh('A-');
    const a = await createCustomer(acme, { name: 'Acme One', accountNumber: account });
    const g = await createCustomer(globex, { name: 'Globex One', accountNumber: account });
    expectError(await as(acme, '/customer', { method: 'POST', body: { name: 'Acme Two', accountNumber: account.toLowerCase() } }), 409, 'Entity_Duplicate', 'accountNumber');
    // An update to the other tenant's value is no duplicate either.
    const other = await createCustomer(globex, { name: 'Globex Two' });
    expectOk(await as(globex, `/customer/${other}`, { method: 'PATCH', body: { accountNumber: `${account}x` }, headers: patch }));
    expectError(await as(globex, `/customer/${other}`, { method: 'PATCH', body: { accountNumber: account }, headers: patch }), 409, 'Entity_Duplicate', 'accountNumber');
    expect(listOf(await as(acme, `/customer?accountNumber=${account}`)).items.map((c) => (c as unknown as { customerId: number }).customerId)).to.deep.equal([a]);
    expect(listOf(await as(globex, `/customer?accountNumber=${account}`)).items.map((c) => (c as unknown as { customerId: number }).customerId)).to.deep.equal([g]);
    expectError(await as(acme, '/customer', { method: 'POST', body: { name: 'Sneaky', tenantId: 'globex' } }), 400, 'Input_UnknownProperty', 'tenantId');
    expectError(await as(acme, `/customer/${a}`, { method: 'PATCH', body: { tenantId: 'globex' }, headers: patch }), 400, 'Input_UnknownProperty', 'tenantId');
  });

  it("outside its tenant a record does not exist: every route of customers and orders, their lines and history (404, also where a write would be a 409)", async () => {
    const customerId = await createCustomer(acme, { name: fresh('Acme Cust ') });
    const order = await as(acme, '/sales-order', { method: 'POST', body: { customerId, status: 1, onlineOrderFlag: true, lines: [{ productId: 707, orderQty: 2 }] } });
    expectOk(order, 201);
    const orderId = order.body.result.salesOrderId as number;
    const lines = expectOk(await as(acme, `/sales-order/${orderId}/detail`)).result as { salesOrderDetailId: number }[];
    const lineId = lines[0].salesOrderDetailId;
    const checks: [string, Promise<Reply>][] = [
      ['read customer', as(globex, `/customer/${customerId}`)],
      ['put customer', as(globex, `/customer/${customerId}`, { method: 'PUT', body: { name: 'X' } })],
      ['patch customer', as(globex, `/customer/${customerId}`, { method: 'PATCH', body: { name: 'X' }, headers: patch })],
      // In use by an order in its tenant (a 409 there): out of it, a 404.
      ['delete customer', as(globex, `/customer/${customerId}`, { method: 'DELETE' })],
      ['customer history', as(globex, `/customer/${customerId}/history`)],
      ['restore customer', as(globex, `/customer/${customerId}/restore`, { method: 'POST' })],
      ['read order', as(globex, `/sales-order/${orderId}`)],
      ['put order', as(globex, `/sales-order/${orderId}`, { method: 'PUT', body: { status: 2, onlineOrderFlag: true } })],
      ['patch order', as(globex, `/sales-order/${orderId}`, { method: 'PATCH', body: { status: 2 }, headers: patch })],
      ['delete order', as(globex, `/sales-order/${orderId}`, { method: 'DELETE' })],
      ['order history', as(globex, `/sales-order/${orderId}/history`)],
      ['lines', as(globex, `/sales-order/${orderId}/detail`)],
      ['line', as(globex, `/sales-order/${orderId}/detail/${lineId}`)],
      ['new line', as(globex, `/sales-order/${orderId}/detail`, { method: 'POST', body: { productId: 707, orderQty: 1 } })],
      ['put line', as(globex, `/sales-order/${orderId}/detail/${lineId}`, { method: 'PUT', body: { productId: 707, orderQty: 3 } })],
      ['patch line', as(globex, `/sales-order/${orderId}/detail/${lineId}`, { method: 'PATCH', body: { orderQty: 3 }, headers: patch })],
      ['delete line', as(globex, `/sales-order/${orderId}/detail/${lineId}`, { method: 'DELETE' })],
    ];
    // A write naming a unique value another record of that tenant holds: still a 404, never a 409 telling of the other record.
    const taken = fresh('T-');
    await createCustomer(acme, { name: 'Holder', accountNumber: taken });
    checks.push(['put customer with a value taken there', as(globex, `/customer/${customerId}`, { method: 'PUT', body: { name: 'X', accountNumber: taken } })]);
    checks.push(['patch customer with a value taken there', as(globex, `/customer/${customerId}`, { method: 'PATCH', body: { accountNumber: taken }, headers: patch })]);
    for (const [what, reply] of checks) expectNotFound(await reply, what);
    expectError(await as(acme, `/customer/${customerId}`, { method: 'DELETE' }), 409, 'Entity_InUse');
    // A reference resolves within the caller's tenant: another tenant's customer is an unknown one.
    const foreign = await as(globex, '/sales-order', { method: 'POST', body: { customerId, status: 1, onlineOrderFlag: true } });
    expect(foreign.status, foreign.text).to.equal(400);
    expect(foreign.body.messages.map((m) => m.property)).to.deep.equal(['customerId']);
    // Nothing was written by any of them.
    const after = expectOk(await as(acme, `/sales-order/${orderId}`)).result as { revisionNumber: number; status: number };
    expect(after).to.include({ revisionNumber: 1, status: 1 });
    expect(expectOk(await as(acme, `/customer/${customerId}`)).result).to.include({ revisionNumber: 1 });
  });

  it("lists never cross tenants: every kind of criterion, sorts, counts, cursor pages and the CSV export", async () => {
    const name = fresh('Tenant Split ');
    const mine = [await createCustomer(globex, { name: `${name} g1`, accountNumber: fresh('G') }), await createCustomer(globex, { name: `${name} g2` })];
    const theirs = [await createCustomer(acme, { name: `${name} a1`, accountNumber: fresh('A') }), await createCustomer(acme, { name: `${name} a2` })];
    const ids = (reply: Reply) => (listOf(reply).items as unknown as { customerId: number }[]).map((c) => c.customerId);
    const queries = [
      '', `name=${encodeURIComponent(name)}&name.operator=SW`, `name=${encodeURIComponent(name)}&name.operator=CN`, 'name=zzzz&name.operator=NCN',
      'accountNumber.operator=NNL', 'accountNumber.operator=NL', 'territoryId.operator=NL',
      'sort[0].fieldName=name&sort[0].sortDirection=Descending', 'sort[0].fieldName=customerId', 'skip=1&take=1',
    ];
    for (const query of queries) {
      const reply = await as(globex, `/customer?${query}&getTotalCount=true`);
      for (const id of ids(reply)) expect(theirs, query).to.not.include(id);
      expect(listOf(reply).totalCount, query).to.be.at.most(mine.length + 10);
    }
    expect(ids(await as(globex, `/customer?name=${encodeURIComponent(name)}&name.operator=SW`))).to.have.members(mine);
    expect(ids(await as(acme, `/customer?name=${encodeURIComponent(name)}&name.operator=SW`))).to.have.members(theirs);
    // Cursor pages, one record each, through every globex customer.
    const seen: number[] = [];
    let cursor = '';
    for (let page = 0; page < 50; page++) {
      const reply = await as(globex, `/customer?take=1&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...ids(reply));
      cursor = listOf(reply).nextCursor ?? '';
      if (!cursor) break;
    }
    expect(seen).to.include.members(mine);
    for (const id of theirs) expect(seen).to.not.include(id);
    // A cursor is its tenant's: the other tenant's list refuses it.
    const acmeCursor = listOf(await as(acme, '/customer?take=1&cursor=')).nextCursor!;
    expect(ids(await as(acme, `/customer?take=1&cursor=${encodeURIComponent(acmeCursor)}`))).to.have.length(1);
    expectError(await as(globex, `/customer?take=1&cursor=${encodeURIComponent(acmeCursor)}`), 400, 'Input_InvalidCursor', 'cursor');
    // The CSV export: the same list.
    const csv = await fetch(`${server.url}/customer?name=${encodeURIComponent(name)}&name.operator=SW`, { headers: { Accept: 'text/csv', Authorization: `Bearer ${globex}` } });
    expect(csv.status).to.equal(200);
    const text = await csv.text();
    expect(text).to.include(`${name} g1`).and.include(`${name} g2`);
    expect(text).to.not.include(`${name} a1`);
    // Orders: globex has none of the sample's.
    expect(await total(globex, '/sales-order?status=5')).to.equal(0);
  });

  it('a caller without a tenant gets 403 on every route of customers and orders, unknown ids included; shared lookups answer', async () => {
    const none = tokenOf(undefined);
    for (const [path, method] of [['/customer', 'GET'], ['/customer/999999999', 'GET'], ['/customer', 'POST'], ['/sales-order', 'GET'],
      ['/sales-order/999999999/detail', 'GET'], ['/sales-order/1/history', 'GET'], ['/customer/1', 'DELETE']] as const) {
      expectError(await as(none, path, { method, ...(method === 'POST' ? { body: { name: 'X' } } : {}) }), 403, 'Security_Forbidden');
    }
    expectOk(await as(none, '/lookup-table/product'));
  });

  it("the tenant of a user is its attribute tenantId at login, kept by its token and changed from its next login or refresh", async () => {
    const userName = fresh('tina');
    const password = `${userName}-password-1`;
    const added = await withErrorScope(() => server.services.users.add({ userName, password, roles: ['Administrator'] }, { tenantId: 'globex' }));
    expect(added.result, JSON.stringify(added.messages)).to.not.equal(undefined);
    const login = async () => expectOk(await server.call('/auth/jwt', { method: 'POST', token: '', body: { userName, password } })).result as { accessToken: string; refreshToken: string };
    const first = await login();
    expect(jwt.decode(first.accessToken)).to.include({ tid: 'globex' });
    const session = expectOk(await as(first.accessToken, '/auth/session')).result as { tenantId?: string };
    expect(session.tenantId).to.equal('globex');
    const created = await createCustomer(first.accessToken, { name: fresh('Tina ') });
    expectOk(await as(globex, `/customer/${created}`));
    expectNotFound(await as(acme, `/customer/${created}`), 'acme reads globex');
    // Moved to acme: the token held keeps globex; a refresh and a new login carry acme.
    expect((await withErrorScope(() => server.services.users.setAttribute(userName, 'tenantId', 'acme'))).result).to.not.equal(undefined);
    expectOk(await as(first.accessToken, `/customer/${created}`));
    const refreshed = expectOk(await server.call('/auth/refresh', { method: 'POST', token: '', body: first })).result as { accessToken: string };
    expect(jwt.decode(refreshed.accessToken)).to.include({ tid: 'acme' });
    expectNotFound(await as(refreshed.accessToken, `/customer/${created}`), 'after refresh');
    expect(jwt.decode((await login()).accessToken)).to.include({ tid: 'acme' });
  });

  it("an external issuer's token: its tid claim alone decides the tenant, whatever a local user of that name has", async () => {
    const userName = fresh('exo');
    await withErrorScope(() => server.services.users.add({ userName, password: `${userName}-password-1`, roles: ['Viewer'] }, { tenantId: 'acme' }));
    const partner = (claims: Record<string, unknown>) => jwt.sign({ sub: userName, name: userName, role: ['Administrator'], ...claims }, PARTNER_KEY,
      { algorithm: 'HS256', issuer: PARTNER_ISSUER, audience: TEST_AUDIENCE, expiresIn: 600 });
    const created = await createCustomer(partner({ tid: 'globex' }), { name: fresh('Partner ') });
    expectOk(await as(globex, `/customer/${created}`));
    expectNotFound(await as(acme, `/customer/${created}`), 'acme reads the partner-made globex customer');
    expectError(await as(partner({}), '/customer'), 403, 'Security_Forbidden');
  });

  it("a SalesPerson's scope applies inside the tenant: the same sales person in another tenant sees none of these orders", async () => {
    // A sales person with orders of the sample (acme's, by adoption).
    let person = 0;
    for (let id = 274; id <= 290 && !person; id++) if (await total(acme, `/sales-order?salesPersonId=${id}`) > 0) person = id;
    const add = async (userName: string, tenantId: string) => {
      const password = `${userName}-password-1`;
      await withErrorScope(() => server.services.users.add({ userName, password, roles: ['SalesPerson'] }, { tenantId, salesPersonId: String(person) }));
      return (expectOk(await server.call('/auth/jwt', { method: 'POST', token: '', body: { userName, password } })).result as { accessToken: string }).accessToken;
    };
    const inAcme = await add(fresh('sp'), 'acme');
    const inGlobex = await add(fresh('sp'), 'globex');
    const all = await total(acme, `/sales-order?salesPersonId=${person}`);
    expect(all).to.be.greaterThan(0);
    expect(await total(inAcme, '/sales-order')).to.equal(all);
    const items = listOf(await as(inAcme, '/sales-order?take=50')).items;
    for (const o of items) expect(o.salesPersonId).to.equal(person);
    expect(await total(inGlobex, '/sales-order')).to.equal(0);
    expect(await total(inGlobex, '/customer')).to.equal(0);
  });

  it('an Idempotency-Key is kept per tenant: the same user name and key in two tenants make two records', async () => {
    const key = fresh('tenancy-key-');
    const body = { name: fresh('Idem ') };
    const post = (tid: string) => as(tokenOf(tid, 'ivy'), '/customer', { method: 'POST', body, headers: { 'Idempotency-Key': key } });
    const a = expectOk(await post('acme'), 201).result.customerId as number;
    const g = expectOk(await post('globex'), 201).result.customerId as number;
    expect(a).to.not.equal(g);
    // The repeat in a tenant answers that tenant's first answer.
    expect(expectOk(await post('acme'), 201).result.customerId).to.equal(a);
    expectOk(await as(globex, `/customer/${g}`));
    expectNotFound(await as(globex, `/customer/${a}`), 'acme record via globex');
  });
});
