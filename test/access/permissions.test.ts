import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { createLogger, loadConfig, loadRoutes, startServer } from 'restlayer';
import { echoRoute, routeFolder } from '../support/route-fixtures.js';
import { makeTempDir } from '../support/temp.js';
import { type CallInit, type Reply, TEST_AUDIENCE, type TestServer, startTestServer } from '../support/server.js';
import { expectError } from '../support/api.js';
import { removeTempDirs } from '../support/temp.js';
import { newKey } from '../support/tokens.js';
import { FAST_HASH, addUser, cookieHeader } from '../support/users.js';
import { describeStores } from '../support/stores.js';

const accessRoutesDir = fileURLToPath(new URL('../support/access-routes/', import.meta.url));

/** An id no sample order, customer or line has: an operation the gate lets through answers 404 or 400, never 403. */
const NONE = 999_999_999;
const ORDER = 43659;
const json = { 'Content-Type': 'application/json' };
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

/**
 * One request of each kind of route, made so that it changes nothing whoever sends it: an absent id, or a body the
 * operation's validation refuses. The permission is checked before anything else (contract part 10), so a caller
 * without it gets 403 and one with it gets past the gate (200, 400 or 404).
 */
interface Probe {
  name: string;
  permission: string | 'authenticated';
  path: string;
  init: CallInit;
}

const probes: Probe[] = [
  { name: 'list orders', permission: 'sales-order.read', path: '/sales-order?take=1', init: {} },
  { name: 'read an order', permission: 'sales-order.read', path: `/sales-order/${NONE}`, init: {} },
  { name: 'create an order', permission: 'sales-order.create', path: '/sales-order', init: { method: 'POST', body: {} } },
  { name: 'PUT an order', permission: 'sales-order.update', path: `/sales-order/${NONE}`, init: { method: 'PUT', body: {} } },
  { name: 'PATCH an order', permission: 'sales-order.update', path: `/sales-order/${NONE}`, init: { method: 'PATCH', body: { status: 'x' }, headers: mergePatch } },
  { name: 'DELETE an order', permission: 'sales-order.delete', path: `/sales-order/${NONE}`, init: { method: 'DELETE' } },
  { name: 'list lines', permission: 'sales-order.read', path: `/sales-order/${ORDER}/detail`, init: {} },
  { name: 'read a line', permission: 'sales-order.read', path: `/sales-order/${NONE}/detail/${NONE}`, init: {} },
  { name: 'add a line', permission: 'sales-order.update', path: `/sales-order/${NONE}/detail`, init: { method: 'POST', body: {} } },
  { name: 'PUT a line', permission: 'sales-order.update', path: `/sales-order/${NONE}/detail/${NONE}`, init: { method: 'PUT', body: {} } },
  { name: 'PATCH a line', permission: 'sales-order.update', path: `/sales-order/${NONE}/detail/${NONE}`, init: { method: 'PATCH', body: { orderQty: 'x' }, headers: mergePatch } },
  { name: 'DELETE a line', permission: 'sales-order.update', path: `/sales-order/${NONE}/detail/${NONE}`, init: { method: 'DELETE' } },
  { name: 'list customers', permission: 'customer.read', path: '/customer?take=1', init: {} },
  { name: 'read a customer', permission: 'customer.read', path: `/customer/${NONE}`, init: {} },
  { name: 'create a customer', permission: 'customer.create', path: '/customer', init: { method: 'POST', body: {} } },
  { name: 'PUT a customer', permission: 'customer.update', path: `/customer/${NONE}`, init: { method: 'PUT', body: {} } },
  { name: 'PATCH a customer', permission: 'customer.update', path: `/customer/${NONE}`, init: { method: 'PATCH', body: { name: 5 }, headers: mergePatch } },
  { name: 'DELETE a customer', permission: 'customer.delete', path: `/customer/${NONE}`, init: { method: 'DELETE' } },
  { name: 'flush a lookup table', permission: 'lookup-table.flush', path: '/lookup-table/no-such-table', init: { method: 'DELETE' } },
  { name: 'unlock an account', permission: 'login-throttle.unlock', path: '/login-throttle/no-such-user', init: { method: 'DELETE' } },
  { name: 'read a lookup table', permission: 'authenticated', path: '/lookup-table/sales-order-status', init: {} },
  { name: 'the session', permission: 'authenticated', path: '/auth/session', init: {} },
];

const ALL = [...new Set(probes.map((p) => p.permission).filter((p) => p !== 'authenticated'))].sort();
const BUSINESS = ALL.filter((p) => p.startsWith('sales-order.') || p.startsWith('customer.'));

/** What each default role holds (contract part 10), written out rather than derived from the code under test. */
const defaults: Record<string, string[]> = {
  Administrator: ALL,
  Clerk: BUSINESS,
  Viewer: ['customer.read', 'sales-order.read'],
  SalesPerson: ['customer.read', 'sales-order.read', 'sales-order.update'],
  // Configured with an empty list below: a role that grants nothing.
  Nothing: [],
  // Not configured at all.
  Stranger: [],
};

async function expectGate(server: TestServer, token: string, held: readonly string[], who: string) {
  for (const probe of probes) {
    const reply = await server.call(probe.path, { ...probe.init, token, headers: { ...(probe.init.body ? json : {}), ...probe.init.headers } });
    const allowed = probe.permission === 'authenticated' || held.includes(probe.permission);
    const label = `${who}: ${probe.name} (${probe.permission})`;
    if (allowed) expect(reply.status, `${label}: ${reply.text}`).to.be.oneOf([200, 400, 404]);
    else expectError(reply, 403, 'Security_Forbidden');
  }
}

describeStores('access: permissions per route (contract part 10)', function () {
  this.timeout(120_000);

  describe('the default roles', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ config: { ...FAST_HASH, Authorization: { Roles: { Nothing: [] } } } });
      await addUser(server, 'vera', 'vera-password-1', ['Viewer'], 'Vera Viewer');
      await addUser(server, 'sam', 'sam-password-1', ['SalesPerson', 'Clerk'], 'Sam Both');
    });
    after(() => server?.stop());

    for (const [role, held] of Object.entries(defaults)) {
      it(`${role}: ${held.length ? held.join(', ') : 'no business permission'}; 403 Security_Forbidden on every other route`, async () => {
        await expectGate(server, server.token({ role: [role] }), held, role);
      });
    }

    it('no role at all: no business permission; the session, logout and lookup tables stay open', async () => {
      await expectGate(server, server.token({ role: [] }), [], 'no role');
      const logout = await server.call('/auth/logout', { method: 'POST', token: server.token({ role: [] }), body: {}, headers: json });
      expect(logout.status, logout.text).to.equal(200);
    });

    it('checks the permission before anything of the operation: no body is read, no id looked up', async () => {
      const viewer = server.token({ role: ['Viewer'] });
      // A body that is not even JSON, and an id that is not an integer: the answer is still the gate's.
      expectError(await server.call('/sales-order', { method: 'POST', token: viewer, body: '{not json', headers: json }), 403, 'Security_Forbidden');
      expectError(await server.call('/customer/abc', { method: 'DELETE', token: viewer }), 403, 'Security_Forbidden');
      // Without credentials it is still a 401, not a 403.
      expectError(await server.call('/sales-order', { method: 'POST', token: null, body: {}, headers: json }), 401, 'Security_Unauthenticated');
    });

    it('several roles: the union of their permissions', async () => {
      await expectGate(server, server.token({ role: ['Viewer', 'Nothing'] }), defaults.Viewer, 'Viewer+Nothing');
      await expectGate(server, server.token({ role: ['SalesPerson', 'Viewer', 'Stranger'] }), defaults.SalesPerson, 'SalesPerson+Viewer');
      await expectGate(server, server.token({ role: ['Viewer', 'Clerk'] }), BUSINESS, 'Viewer+Clerk');
    });

    it('GET /auth/session lists the permissions the caller holds, wildcards expanded, sorted', async () => {
      const permissions = async (role: string[]) => (await server.call('/auth/session', { token: server.token({ role }) })).body.result.permissions as string[];
      expect(await permissions(['Administrator'])).to.deep.equal(ALL);
      expect(await permissions(['Viewer'])).to.deep.equal(['customer.read', 'sales-order.read']);
      expect(await permissions(['SalesPerson', 'Viewer'])).to.deep.equal(['customer.read', 'sales-order.read', 'sales-order.update']);
      expect(await permissions(['Nothing'])).to.deep.equal([]);
      expect(await permissions([])).to.deep.equal([]);
    });

    it('/auth/cookie answers the user with its permissions, and /auth/session the same for that cookie', async () => {
      const login = await server.call('/auth/cookie', { method: 'POST', token: null, body: { userName: 'vera', password: 'vera-password-1' }, headers: json });
      expect(login.status, login.text).to.equal(200);
      expect(login.body.result).to.deep.equal({
        userName: 'vera', name: 'Vera Viewer', roles: ['Viewer'], permissions: ['customer.read', 'sales-order.read'], authenticationType: 'Cookies',
      });
      const cookie = cookieHeader(login.headers);
      const session = await server.call('/auth/session', { token: null, headers: { Cookie: cookie } });
      expect(session.body.result.permissions).to.deep.equal(['customer.read', 'sales-order.read']);
      // The cookie caller is held to the same permissions.
      const origin = new URL(server.url).origin;
      const del = await server.call(`/sales-order/${NONE}`, { method: 'DELETE', token: null, headers: { Cookie: cookie, Origin: origin } });
      expectError(del, 403, 'Security_Forbidden');
      const two = await server.call('/auth/cookie', { method: 'POST', token: null, body: { userName: 'sam', password: 'sam-password-1' }, headers: json });
      expect(two.body.result.permissions).to.deep.equal(BUSINESS);
    });
  });

  describe('the API description states each operation\'s permission', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ sampleData: false });
    });
    after(() => server?.stop());

    it('x-permission and x-scopes on each operation, the permission in its description, 403 where a permission can refuse', async () => {
      const reply = await server.call('/openapi.json', { token: null });
      expect(reply.status, reply.text).to.equal(200);
      const paths = reply.body.result.paths as Record<string, Record<string, { 'x-permission'?: string; 'x-scopes'?: string[]; description?: string; responses: Record<string, unknown> }>>;
      const list = paths['/sales-order'].get;
      expect([list['x-permission'], list['x-scopes']]).to.deep.equal(['sales-order.read', ['own']]);
      expect(list.description).to.include('sales-order.read');
      expect(list.responses).to.have.property('403');
      const remove = paths['/customer/{customerId}'].delete;
      expect([remove['x-permission'], remove['x-scopes']]).to.deep.equal(['customer.delete', ['own']]);
      expect(remove.responses).to.have.property('403');
      const flush = paths['/lookup-table/{type}'].delete;
      expect(flush['x-permission']).to.equal('lookup-table.flush');
      expect(flush).to.not.have.property('x-scopes');
      expect(flush.responses).to.have.property('403');
      // Any signed-in caller may read a lookup table: no permission, so no 403 (a GET has no CSRF check either).
      const lookup = paths['/lookup-table/{type}'].get;
      expect(lookup).to.not.have.property('x-permission');
      expect(lookup.responses).to.not.have.property('403');
      expect(lookup.responses).to.have.property('401');
      // Anonymous routes: neither.
      const login = paths['/auth/jwt'].post;
      expect(login).to.not.have.property('x-permission');
      expect(login.responses).to.not.have.property('403');
      // Every secured operation that names no permission is one for any authenticated caller.
      for (const [path, verbs] of Object.entries(paths)) {
        for (const [verb, op] of Object.entries(verbs)) {
          if (op['x-permission']) expect(op.responses, `${verb} ${path}`).to.have.property('403');
        }
      }
    });

    it('the docs page shows the extensions (x-permission) of each operation', async () => {
      const page = await (await fetch(`${server.url}/docs`)).text();
      const script = /src="([^"]*docs\.js)"/.exec(page)![1];
      const js = await fetch(new URL(script, server.url));
      expect(await js.text()).to.include('showExtensions: true');
    });
  });

  describe('a configuration that changes grants', () => {
    let server: TestServer;
    const partnerKey = newKey();
    before(async () => {
      server = await startTestServer({
        sampleData: false,
        env: {
          // One role set by environment: the other roles keep their defaults.
          Authorization__Roles__Clerk__0: 'customer.read',
          Authorization__Roles__Clerk__1: 'customer.update',
          Authorization__Roles__Auditor__0: '*.read',
          Authorization__Roles__Flusher: 'lookup-table.*',
          Authentication__Schemes__Bearer__SigningKeys__1__Issuer: 'partner-issuer',
          Authentication__Schemes__Bearer__SigningKeys__1__Value: partnerKey,
        },
      });
    });
    after(() => server?.stop());

    it('an environment variable sets one role; the other roles keep their defaults', async () => {
      await expectGate(server, server.token({ role: ['Clerk'] }), ['customer.read', 'customer.update'], 'Clerk (configured)');
      await expectGate(server, server.token({ role: ['Viewer'] }), defaults.Viewer, 'Viewer (default)');
      await expectGate(server, server.token({ role: ['Administrator'] }), ALL, 'Administrator (default)');
    });

    it('a role named in an environment variable in another case sets the default role of that name, not a second role', () => {
      const { config } = loadConfig({
        env: {
          NODE_ENV: 'test', Storage__Sqlite__Path: join(makeTempDir(), 'never.db'),
          AUTHORIZATION__ROLES__VIEWER: 'customer.read',
          authorization__roles__salesperson__0: 'sales-order.read:own',
        },
      });
      const roles = config.Authorization.Roles;
      expect(roles.Viewer).to.deep.equal(['customer.read']);
      expect(roles.SalesPerson).to.deep.equal(['sales-order.read:own']);
      expect(roles.Clerk).to.deep.equal(['sales-order.*', 'customer.*']);
      expect(Object.keys(roles).sort()).to.deep.equal(['Administrator', 'Clerk', 'SalesPerson', 'Viewer']);
    });

    it('a wildcard *.read grants every read permission, and only those', async () => {
      await expectGate(server, server.token({ role: ['Auditor'] }), ['customer.read', 'sales-order.read'], 'Auditor');
      await expectGate(server, server.token({ role: ['Flusher'] }), ['lookup-table.flush'], 'Flusher');
      const session = await server.call('/auth/session', { token: server.token({ role: ['Auditor', 'Flusher'] }) });
      expect(session.body.result.permissions).to.deep.equal(['customer.read', 'lookup-table.flush', 'sales-order.read']);
    });

    it('a token of a trusted external issuer gets the permissions of the roles in its role claims', async () => {
      const external = (claims: Record<string, unknown>) => jwt.sign({ sub: 'partner-user', ...claims }, Buffer.from(partnerKey, 'base64'), {
        algorithm: 'HS256', issuer: 'partner-issuer', audience: TEST_AUDIENCE, expiresIn: 600,
      });
      await expectGate(server, external({ role: 'Auditor' }), ['customer.read', 'sales-order.read'], 'external Auditor');
      // The role claim as `dotnet user-jwts` writes it.
      const dotnet = external({ 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role': ['Viewer'] });
      expectError(await server.call(`/customer/${NONE}`, { method: 'DELETE', token: dotnet }), 403, 'Security_Forbidden');
      const read = await server.call(`/customer/${NONE}`, { token: dotnet });
      expect(read.status, read.text).to.equal(404);
      expect((await server.call('/auth/session', { token: external({ role: ['Viewer'] }) })).body.result.permissions)
        .to.deep.equal(['customer.read', 'sales-order.read']);
    });
  });

  describe('what the operation sees (the request access)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ sampleData: false, routesDir: accessRoutesDir, config: { Authorization: { Roles: { Regional: ['sales-order.read:own'] } } } });
    });
    after(() => {
      removeTempDirs();
      return server?.stop();
    });

    const probe = async (role: string[]): Promise<Reply> => server.call('/access-probe', { token: server.token({ role }) });

    it('the caller, the route\'s permission and the scopes limiting it', async () => {
      const reply = await probe(['SalesPerson']);
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.body.result).to.deep.equal({
        userName: 'tester', attributes: {}, permission: 'sales-order.read', scopes: ['own'], holdsUpdate: true, updateScopes: ['own'], holdsDelete: false,
      });
    });

    it('a permission granted without a scope by any role is not limited by another role\'s scope', async () => {
      const both = (await probe(['SalesPerson', 'Viewer'])).body.result;
      expect([both.scopes, both.updateScopes]).to.deep.equal(['every record', ['own']]);
      const admin = (await probe(['Administrator'])).body.result;
      expect([admin.scopes, admin.updateScopes, admin.holdsDelete]).to.deep.equal(['every record', 'every record', true]);
      const regional = (await probe(['Regional'])).body.result;
      expect([regional.scopes, regional.holdsUpdate]).to.deep.equal([['own'], false]);
    });

    it('a caller without the permission never reaches the operation', async () => {
      expectError(await probe(['Nothing']), 403, 'Security_Forbidden');
    });

    it('a route naming no permission still hands the operation the caller\'s grants (what a reference it resolves may reach)', async () => {
      const seen = async (role: string[]) => (await server.call('/access-probe-authenticated', { token: server.token({ role }) })).body.result;
      expect(await seen(['SalesPerson'])).to.deep.equal({
        userName: 'tester', permission: 'none', scopes: 'every record', holdsCustomerRead: true, customerReadScopes: ['own'],
      });
      expect(await seen(['Nothing'])).to.deep.include({ holdsCustomerRead: false });
    });
  });

  describe('startup refuses a route or a role that does not say who may do what', () => {
    const loadError = async (files: Record<string, string>): Promise<string> => {
      try {
        await loadRoutes(routeFolder(files));
      } catch (err) {
        return (err as Error).message;
      }
      return expect.fail('loadRoutes accepted the folder') as never;
    };

    it('a secured route naming no permission (nor authenticated, anonymous or documentation): the file and the verb', async () => {
      const message = await loadError({ 'ok.js': echoRoute('GET', 'ok', 'anonymous: true,'), 'things/[thingId].js': echoRoute('DELETE', 'thing', 'params: model({ thingId: integer() }),') });
      expect(message).to.include(join('things', '[thingId].js')).and.include('DELETE names no permission')
        .and.include("permission: '<service>.<operation>'").and.include('authenticated: true');
    });

    it('a permission that is no permission name, or said together with anonymous or authenticated; scopes without a permission', async () => {
      expect(await loadError({ 'a.js': echoRoute('GET', 'a', "permission: 'Things.*',") })).to.include('a.js').and.include('GET: permission "Things.*" is not a permission name');
      expect(await loadError({ 'b.js': echoRoute('GET', 'b', "permission: 'thing.read', anonymous: true,") })).to.include('b.js').and.include('together with anonymous');
      expect(await loadError({ 'c.js': echoRoute('GET', 'c', "permission: 'thing.read', authenticated: true,") })).to.include('together with authenticated');
      expect(await loadError({ 'd.js': echoRoute('GET', 'd', "authenticated: true, scopes: ['own'],") })).to.include('d.js').and.include('scopes limit a permission');
    });

    it('a role granting a permission with a scope that a route of that permission does not apply: role, grant and route, before the store opens', async () => {
      const dir = routeFolder({
        'thing.js': echoRoute('GET', 'thing', "permission: 'thing.read', scopes: ['own'],"),
        'thing/[thingId].js': echoRoute('DELETE', 'thing', "permission: 'thing.delete', params: model({ thingId: integer() }),"),
      });
      const db = join(makeTempDir(), 'never.db');
      const start = async (roles: Record<string, string[]>) => {
        const { config } = loadConfig({ env: { NODE_ENV: 'test', Storage__Sqlite__Path: db }, overrides: { Authorization: { Roles: roles }, Metrics: { Port: 0 } } });
        const running = await startServer({ config, log: createLogger('error', () => {}), port: 0, host: '127.0.0.1', application: { modules: [], routesDir: dir } });
        await running.close();
      };
      let failure: Error | undefined;
      await start({ Owner: ['thing.*:own'] }).catch((err: Error) => (failure = err));
      expect(failure?.message).to.equal('Authorization:Roles:Owner: "thing.*:own" limits thing.delete to the scope own, which DELETE /thing/:thingId '
        + `(routes/${join('thing', '[thingId].js')}) does not apply (its scopes: none); grant it without the scope or add the scope to the route`);
      // The scope a route applies is fine; so is a grant without a scope.
      await start({ Owner: ['thing.read:own', 'thing.delete'] });
    });
  });
});
