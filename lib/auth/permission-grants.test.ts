import { expect } from 'chai';
import { DEFAULT_ROLES } from '../config/schema.js';
import { RoleGrants } from './permission-grants.js';
import { covers, parseGrant } from './permissions.js';

// How roles resolve to what a caller may do (contract part 10). The HTTP behaviour is tested in test/access/.
const known = [
  'sales-order.read', 'sales-order.create', 'sales-order.update', 'sales-order.delete',
  'customer.read', 'customer.create', 'customer.update', 'customer.delete', 'lookup-table.flush', 'login-throttle.unlock',
];

describe('permission grants (lib/auth/permission-grants.ts)', () => {
  it('parses grants: * stands for one whole segment, :scope limits the grant', () => {
    expect(parseGrant('sales-order.read:own')).to.deep.equal({ segments: ['sales-order', 'read'], scope: 'own' });
    expect(parseGrant('*.*')).to.deep.equal({ segments: ['*', '*'] });
    for (const bad of ['sales-order', 'sales-order.*:', 'sales*.read', 'Sales-Order.read', '*', 'a..b', 'a.b:own:more', '']) {
      expect(parseGrant(bad), bad).to.equal(undefined);
    }
    const star = parseGrant('*.read')!;
    expect(covers(star, 'customer.read')).to.equal(true);
    expect(covers(star, 'customer.reader')).to.equal(false);
    expect(covers(star, 'a.b.read')).to.equal(false);
  });

  it('the default roles, expanded against the known permission names and sorted', () => {
    const grants = new RoleGrants(DEFAULT_ROLES, known);
    expect(grants.forRoles(['Administrator']).permissions).to.deep.equal([...known].sort());
    expect(grants.forRoles(['Clerk']).permissions).to.deep.equal([
      'customer.create', 'customer.delete', 'customer.read', 'customer.update', 'sales-order.create', 'sales-order.delete', 'sales-order.read', 'sales-order.update',
    ]);
    expect(grants.forRoles(['Viewer']).permissions).to.deep.equal(['customer.read', 'sales-order.read']);
    expect(grants.forRoles(['SalesPerson']).permissions).to.deep.equal(['customer.read', 'sales-order.read', 'sales-order.update']);
    expect(grants.forRoles(['SalesPerson']).scopesOf('sales-order.update')).to.deep.equal(['own']);
    expect(grants.forRoles(['Viewer']).scopesOf('sales-order.read')).to.equal(undefined);
    expect(grants.forRoles([]).permissions).to.deep.equal([]);
    expect(grants.forRoles(['NoSuchRole']).holds('sales-order.read')).to.equal(false);
  });

  it('several roles: the union; a grant without a scope is not limited by another role\'s scope', () => {
    const grants = new RoleGrants({ ...DEFAULT_ROLES, Regional: ['sales-order.read:region'] }, known);
    const both = grants.forRoles(['SalesPerson', 'Viewer']);
    expect(both.holds('sales-order.read')).to.equal(true);
    expect(both.scopesOf('sales-order.read')).to.equal(undefined);
    expect(both.scopesOf('sales-order.update')).to.deep.equal(['own']);
    // Two scoped grants of one permission: a record in either is in reach.
    expect(grants.forRoles(['Regional', 'SalesPerson']).scopesOf('sales-order.read')).to.deep.equal(['own', 'region']);
    // The order the roles come in does not change the answer.
    expect(grants.forRoles(['Viewer', 'SalesPerson']).permissions).to.deep.equal(both.permissions);
  });

  it('a permission no route names is resolved when asked, and kept', () => {
    const grants = new RoleGrants(DEFAULT_ROLES, known).forRoles(['Viewer']);
    expect(grants.holds('audit.read')).to.equal(true);
    expect(grants.holds('audit.purge')).to.equal(false);
    expect(grants.permissions).to.not.include('audit.read');
  });

  it('resolves a set of roles once: the check on a request is a lookup (timing printed, not asserted)', () => {
    const grants = new RoleGrants(DEFAULT_ROLES, known);
    expect(grants.forRoles(['Clerk', 'Viewer'])).to.equal(grants.forRoles(['Clerk', 'Viewer']));
    // What the gate does per request: find the caller's grants by their roles, then check the route's permission.
    const roleSets = [['Administrator'], ['Clerk'], ['SalesPerson', 'Viewer']];
    const n = 300_000;
    let held = 0;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (grants.forRoles(roleSets[i % 3]).holds('sales-order.update')) held++;
    const micros = Number(process.hrtime.bigint() - start) / 1000 / n;
    expect(held).to.equal(n);
    // eslint-disable-next-line no-console
    console.log(`      permission check: ${micros.toFixed(3)} µs per request`);
  });
});
