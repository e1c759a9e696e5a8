import { Output, currentAccess, route } from 'restlayer';

/**
 * Test-only: `GET /access-probe-authenticated`, a route any signed-in caller may call (no permission), answers the
 * access its operation sees: the caller's grants still decide what a reference it resolves reaches.
 */
export const GET = route({
  summary: 'Test probe: the request access of a route naming no permission.',
  authenticated: true,
  async handle(): Promise<Output<unknown>> {
    const access = currentAccess();
    if (!access) return Output.of({ access: 'none' });
    return Output.of({
      userName: access.userName,
      // The envelope leaves nulls out: an absent permission and "every record" are spelled out.
      permission: access.permission ?? 'none',
      scopes: access.scopes ?? 'every record',
      holdsCustomerRead: access.holds('customer.read'),
      customerReadScopes: access.scopesOf('customer.read') ?? 'every record',
    });
  },
});
