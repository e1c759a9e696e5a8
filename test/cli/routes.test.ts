import { expect } from 'chai';
import { expectCliFailure, lines, stackLine } from '../support/cli-env.js';
import { childEnv, killChildren, runCli } from '../support/processes.js';

interface Listed {
  verb: string;
  path: string;
  permission: string;
  scopes: string[];
}

/** `restlayer routes [--json]`: every route with its permission (contract parts 8 and 10). It opens no store. */
describe('restlayer routes', function () {
  this.timeout(60_000);
  after(() => killChildren());
  const routes = (args: string[], extra: Record<string, string | undefined> = {}) => runCli(['routes', ...args], { env: childEnv(extra) });

  it('--json: every route served, with its verb, path, permission (or anonymous / authenticated) and scopes', async () => {
    const run = await routes(['--json']);
    expect(run.code, run.stderr).to.equal(0);
    const listed = JSON.parse(run.stdout) as Listed[];
    const find = (verb: string, path: string) => listed.find((r) => r.verb === verb && r.path === path);
    expect(find('GET', '/sales-order')).to.deep.equal({ verb: 'GET', path: '/sales-order', permission: 'sales-order.read', scopes: ['own'] });
    expect(find('POST', '/sales-order')).to.deep.equal({ verb: 'POST', path: '/sales-order', permission: 'sales-order.create', scopes: ['own'] });
    expect(find('DELETE', '/sales-order/{salesOrderId}/detail/{salesOrderDetailId}'))
      .to.deep.equal({ verb: 'DELETE', path: '/sales-order/{salesOrderId}/detail/{salesOrderDetailId}', permission: 'sales-order.update', scopes: ['own'] });
    expect(find('DELETE', '/customer/{customerId}')).to.deep.equal({ verb: 'DELETE', path: '/customer/{customerId}', permission: 'customer.delete', scopes: ['own'] });
    expect(find('DELETE', '/lookup-table/{type}')).to.deep.equal({ verb: 'DELETE', path: '/lookup-table/{type}', permission: 'lookup-table.flush', scopes: [] });
    expect(find('DELETE', '/login-throttle/{userName}')?.permission).to.equal('login-throttle.unlock');
    expect(find('GET', '/lookup-table/{type}')?.permission).to.equal('authenticated');
    expect(find('POST', '/auth/logout')?.permission).to.equal('authenticated');
    expect(find('POST', '/auth/jwt')?.permission).to.equal('anonymous');
    expect(find('GET', '/health/live')?.permission).to.equal('anonymous');
    // RestAPI:PublicDocs is true outside production.
    expect(find('GET', '/openapi.json')?.permission).to.equal('anonymous');
    // Variant A's routes only: /authentication is variant B's.
    expect(find('POST', '/authentication')).to.equal(undefined);
    // Every route says who may call it.
    expect(listed.filter((r) => !r.permission)).to.deep.equal([]);
    for (const r of listed) expect(Object.keys(r)).to.deep.equal(['verb', 'path', 'permission', 'scopes']);
  });

  it('with Tenancy:Enabled, tenant among the scopes of every route of customers and sales orders, of no other (contract part 12)', async () => {
    const run = await routes(['--json'], { Tenancy__Enabled: 'true' });
    expect(run.code, run.stderr).to.equal(0);
    const listed = JSON.parse(run.stdout) as Listed[];
    const owned = listed.filter((r) => /^\/(customer|sales-order)(\/|$)/.test(r.path));
    expect(owned.length).to.be.greaterThan(15);
    for (const r of owned) expect(r.scopes, `${r.verb} ${r.path}`).to.deep.equal(['tenant', 'own']);
    for (const r of listed.filter((x) => !owned.includes(x))) expect(r.scopes, `${r.verb} ${r.path}`).to.not.include('tenant');
    // Off (the default, the first test): no route lists it.
  });

  it('one line per route: verb, path, permission, scopes, in columns, under RestAPI:Path; variant B and private docs', async () => {
    const run = await routes([], { RestAPI__Path: '/api', Authentication__Variant: 'B', RestAPI__PublicDocs: 'false' });
    expect(run.code, run.stderr).to.equal(0);
    const out = lines(run.stdout);
    expect(out[0].split(/\s+/)).to.deep.equal(['VERB', 'PATH', 'PERMISSION', 'SCOPES']);
    const rows = out.slice(1).map((l) => l.split(/\s+/));
    expect(rows).to.deep.include(['GET', '/api/sales-order/{salesOrderId}', 'sales-order.read', 'own']);
    expect(rows).to.deep.include(['DELETE', '/api/lookup-table', 'lookup-table.flush']);
    expect(rows).to.deep.include(['POST', '/api/authentication', 'anonymous']);
    expect(rows).to.deep.include(['GET', '/api/openapi.json', 'authenticated']);
    expect(rows.some((r) => r[1] === '/api/auth/cookie')).to.equal(false);
    // Columns line up: every path starts where the header's does.
    const at = out[0].indexOf('PATH');
    for (const l of out.slice(1)) expect(l.indexOf('/api/'), l).to.equal(at);
  });

  it('refuses a role whose scoped grant a route of that permission does not apply, naming role, grant and route', async () => {
    const run = await routes([], { Authorization__Roles__Remover__0: 'customer.delete:region' });
    expectCliFailure(run, 1);
    expect(run.stderr).to.include('Authorization:Roles:Remover: "customer.delete:region" limits customer.delete to the scope region')
      .and.include('DELETE /customer/:_customerId (routes/customer/[_customerId].js)');
    expect(run.stderr).to.not.match(stackLine);
  });

  it('an invalid grant is an invalid configuration: one line naming the key and the role', async () => {
    const run = await routes(['--json'], { Authorization__Roles__Auditor__0: 'everything' });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(/Authorization:Roles: Auditor: "everything" is not a permission/).and.not.match(stackLine);
  });

  it('restlayer config check shows the roles in effect: the one set by environment and the others\' defaults', async () => {
    const run = await runCli(['config', 'check', '--json'], { env: childEnv({ Authorization__Roles__Auditor__0: 'customer.read', Authorization__Roles__Clerk__0: 'sales-order.*' }) });
    expect(run.code, run.stderr).to.equal(0);
    expect((JSON.parse(run.stdout) as { config: { Authorization: { Roles: unknown } } }).config.Authorization.Roles).to.deep.equal({
      Administrator: ['*.*'],
      Clerk: ['sales-order.*'],
      Viewer: ['*.read'],
      SalesPerson: ['sales-order.read:own', 'sales-order.update:own', 'customer.read:own'],
      Auditor: ['customer.read'],
    });
  });

  it('restlayer config check refuses a scoped grant that a route of its permission does not apply, as serve does (exit 1)', async () => {
    const run = await runCli(['config', 'check'], { env: childEnv({ Authorization__Roles__Viewer: 'lookup-table.flush:own' }) });
    expectCliFailure(run, 1);
    expect(run.stderr).to.include('Authorization:Roles:Viewer: "lookup-table.flush:own" limits lookup-table.flush to the scope own');
    expect(run.stdout).to.not.include('configuration is valid');
  });

  it('restlayer config check warns about a grant that matches no permission (a typo grants nothing), naming role and grant; defaults are not checked', async () => {
    const run = await runCli(['config', 'check', '--json'], { env: childEnv({ Authorization__Roles__Auditor: 'sales-order.raed,customer.read,*.*.read' }) });
    expect(run.code, run.stderr).to.equal(0);
    const { warnings } = JSON.parse(run.stdout) as { warnings: string[] };
    expect(warnings.filter((w) => w.startsWith('Authorization:Roles'))).to.deep.equal([
      'Authorization:Roles:Auditor: "sales-order.raed" matches no permission of this server\'s routes; it grants nothing',
      'Authorization:Roles:Auditor: "*.*.read" matches no permission of this server\'s routes; it grants nothing',
    ]);
  });
});
