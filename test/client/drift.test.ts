import { expect } from 'chai';
import { type LoadedRoute, type Route, applicationRoutes, integer, model, text } from 'restlayer';
import { application } from '../../services/index.js';
import { LookupProxy, type RestClient } from 'restlayer/client';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';
import { salesOrder } from '../../services/sales-order/sales-order.js';
import { proxyDrift, resourceDrift } from 'restlayer/testing';
import { type DriftProxy, type ProxyUnderTest, driftFiles, driftProblems, methodsOf } from './drift.js';

/** Every proxy of the client, with one valid call of each method. */
export function proxies(client: RestClient): ProxyUnderTest[] {
  const salesOrder = new SalesOrderProxy(client);
  const lookup = new LookupProxy(client);
  const tokens = client.tokens!;
  return [
    {
      description: SalesOrderProxy,
      methods: methodsOf(salesOrder),
      samples: {
        read: () => salesOrder.read(43659),
        readList: () => salesOrder.readList({
          status: { operator: 'In', values: [1, 5] },
          orderDate: { operator: 'BW', values: [new Date('2024-01-01T00:00:00Z'), new Date('2024-01-31T00:00:00Z')] },
          customerName: { operator: 'CN', values: ['50% off_'] },
          onlineOrderFlag: { operator: 'EQ', values: [true] },
          skip: 10, take: 5, getTotalCount: true,
          sort: [{ fieldName: 'orderDate', sortDirection: 'Descending' }],
        }),
        create: () => salesOrder.create({ customerId: 11000, status: 1, onlineOrderFlag: true, dueDate: new Date('2025-03-01T00:00:00Z'), comment: null }),
        update: () => salesOrder.update(43659, { status: 2, onlineOrderFlag: false, shipDate: new Date(), revisionNumber: 3, purchaseOrderNumber: 'PO-1' }),
        patch: () => salesOrder.patch(43659, { comment: null, revisionNumber: 3 }),
        delete: () => salesOrder.delete(43659),
        history: () => salesOrder.history(43659, { skip: 2, take: 5 }),
        restore: () => salesOrder.restore!(43659, { revisionNumber: 3 }),
        purgeCancelled: () => salesOrder.purgeCancelled(new Date()),
        readLines: () => salesOrder.readLines(43659),
        readLine: () => salesOrder.readLine(43659, 7),
        createLine: () => salesOrder.createLine(43659, { productId: 707, orderQty: 2, unitPrice: 19.99, unitPriceDiscount: 0.1, revisionNumber: 1 }),
        updateLine: () => salesOrder.updateLine(43659, 7, { productId: 707, orderQty: 1, unitPrice: null, revisionNumber: 2 }),
        patchLine: () => salesOrder.patchLine(43659, 7, { orderQty: 3 }),
        deleteLine: () => salesOrder.deleteLine(43659, 7, 4),
      },
    },
    {
      description: LookupProxy,
      methods: methodsOf(lookup),
      samples: {
        read: () => lookup.read('sales-order-status'),
        remove: () => lookup.remove('sales-territory'),
        removeAll: () => lookup.removeAll(),
      },
    },
    {
      // The token service implements ITokenService.refresh through RemoteApi:RefreshTokenPath (default auth/refresh).
      description: { service: 'ITokenService', operations: {}, notExposed: [] },
      methods: ['refresh'],
      everyMethodIsAnOperation: false,
      samples: { refresh: () => tokens.refresh() },
    },
  ];
}

/** A copy of the loaded routes with one route changed. */
function changed(routes: LoadedRoute[], operation: string, change: (r: LoadedRoute) => LoadedRoute): LoadedRoute[] {
  const at = routes.findIndex((r) => r.route.operation === operation);
  expect(at, operation).to.be.at.least(0);
  return routes.map((r, i) => (i === at ? change(r) : r));
}
const withRoute = (r: LoadedRoute, spec: Record<string, unknown>): LoadedRoute => ({ ...r, route: { ...r.route, ...spec } as Route });

describe('client: no drift between proxies and routes', () => {
  let routes: LoadedRoute[];
  /** The proxies above and those of services with a drift file of their own (test/<service>/<service>.drift.ts). */
  let everyProxy: (client: RestClient) => ProxyUnderTest[];
  before(async () => {
    routes = await applicationRoutes(application);
    const discovered: DriftProxy[] = await driftFiles();
    everyProxy = (client) => [...proxies(client), ...discovered.map((make) => make(client))];
  });

  it('every exposed operation has a proxy method sending the verb, path, query and body its route takes', async () => {
    expect(routes.filter((r) => r.route.operation).length).to.be.at.least(9);
    expect(await driftProblems(routes, everyProxy)).to.deep.equal([]);
  });

  it("resourceDrift makes a valid call of each child collection's method from the declaration (the order's lines at detail, by salesOrderDetailId), and of the one it does not expose", async () => {
    // A method without a sample call, or a call its route refuses, would be a problem named here.
    expect(await proxyDrift(application, SalesOrderProxy, resourceDrift(SalesOrderProxy, salesOrder))).to.deep.equal([]);
  });

  describe('fails when a route and its proxy disagree', () => {
    const cases: [string, () => LoadedRoute[], RegExp][] = [
      ['another verb', () => changed(routes, 'ISalesOrderService.update', (r) => ({ ...r, verb: 'PATCH' })), /ISalesOrderService\.update .*the proxy sends PUT/],
      ['another path', () => changed(routes, 'ISalesOrderService.read', (r) => ({ ...r, path: '/sales-orders/:_salesOrderId' })), /ISalesOrderService\.read .*the proxy sends to \/sales-order\/43659/],
      ['another path parameter type', () => changed(routes, 'ISalesOrderService.delete', (r) => withRoute(r, { params: model({ _salesOrderId: integer({ min: 50_000 }) }) })), /ISalesOrderService\.delete .*path parameters refused/],
      ['a body field the proxy does not send', () => changed(routes, 'ISalesOrderService.create', (r) => withRoute(r, { body: model({ customerId: integer(), channel: text({ min: 1 }) }) })), /ISalesOrderService\.create .*body refused/],
      ['a route that now takes no query string', () => changed(routes, 'ISalesOrderService.readList', (r) => withRoute(r, { query: undefined })), /readList .*query string the route does not take/],
      ['an anonymous route', () => changed(routes, 'ILookupService.read', (r) => withRoute(r, { anonymous: true })), /ILookupService\.read .*anonymous but the proxy sends credentials/],
      ['another refresh path', () => changed(routes, 'ITokenService.refresh', (r) => ({ ...r, path: '/auth/token/refresh' })), /ITokenService\.refresh .*sends to \/auth\/refresh/],
      ['an operation no proxy method sends', () => changed(routes, 'ISalesOrderService.delete', (r) => withRoute(r, { operation: 'ISalesOrderService.archive' })),
        /ISalesOrderService\.archive .*the ISalesOrderService proxy has no method archive/],
      ['a service without a proxy', () => [...routes, withRoute(routes.find((r) => r.route.operation === 'ISalesOrderService.read')!, { operation: 'IInvoiceService.read' })],
        /IInvoiceService\.read .*no proxy implements IInvoiceService/],
      ['a not-exposed operation that a route now exposes', () => changed(routes, 'ISalesOrderService.delete', (r) => withRoute(r, { operation: 'ISalesOrderService.purgeCancelled' })),
        /ISalesOrderService\.purgeCancelled .*declares purgeCancelled not exposed/],
      ['a proxy method no route exposes', () => routes.filter((r) => r.route.operation !== 'ISalesOrderService.delete'),
        /ISalesOrderService\.delete: no route exposes it|ISalesOrderService\.delete: the proxy table says DELETE/],
    ];
    for (const [name, mutate, expected] of cases) {
      it(name, async () => {
        const problems = await driftProblems(mutate(), everyProxy);
        expect(problems.some((p) => expected.test(p)), problems.join('\n')).to.equal(true);
      });
    }
  });
});
