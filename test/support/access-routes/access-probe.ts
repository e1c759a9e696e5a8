import { Output, currentAccess, route } from 'restlayer';

/**
 * Test-only: `GET /access-probe` answers the access the route runner handed the operation (who, the permission, the
 * scopes limiting it, what else the caller holds), so a test watches over HTTP what services see.
 */
export const GET = route({
  summary: 'Test probe: the request access services see.',
  permission: 'sales-order.read',
  scopes: ['own'],
  async handle(): Promise<Output<unknown>> {
    const access = currentAccess();
    if (!access) return Output.of({ access: 'none' });
    return Output.of({
      userName: access.userName,
      attributes: access.attributes,
      permission: access.permission,
      // The envelope leaves nulls out: "every record" is spelled out.
      scopes: access.scopes ?? 'every record',
      holdsUpdate: access.holds('sales-order.update'),
      updateScopes: access.scopesOf('sales-order.update') ?? 'every record',
      holdsDelete: access.holds('sales-order.delete'),
    });
  },
});
