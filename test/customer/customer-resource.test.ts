import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { type TestServer, resourceSuite } from 'restlayer/testing';
import { customer } from '../../services/customer/customer.js';
import { application } from '../../services/index.js';
import { describeStores } from '../support/stores.js';

/** The sales person the suite's scoped caller stands for (an entry of lookup table sales-person). */
const SALES_PERSON = '279';

/**
 * A customer joins a sales person's scope with an order of theirs (services/customer/customer-scopes.ts): an order
 * taker of that sales person (its create limited to `own`, so the order is theirs) orders for the customer.
 */
async function orderFor(server: TestServer, customerId: number): Promise<void> {
  const userName = 'suite-order-taker';
  const roles = ['SuiteOrderTaker'];
  const known = await withErrorScope(() => server.services.users.read(userName));
  if (!known.result) await withErrorScope(() => server.services.users.add({ userName, password: 'suite-order-taker-1', roles }, { salesPersonId: SALES_PERSON }));
  const order = { customerId, status: 1, onlineOrderFlag: false, lines: [{ productId: 707, orderQty: 1 }] };
  const reply = await server.call('/sales-order', { method: 'POST', body: order, token: server.token({ sub: userName, role: roles }) });
  expect(reply.status, reply.text).to.equal(201);
}

/**
 * The shared suite of restlayer/testing over the customer declaration, on every store: CRUD, validation of each field,
 * the unique account number, criteria, sorts, paging, cursors, history, permissions and the SalesPerson's scope. The
 * contract's own texts for customers stay in customer.test.ts and customer-sample.test.ts.
 */
describeStores('customer declaration', () => {
  resourceSuite({
    application,
    resource: customer,
    config: { Authorization: { Roles: { SuiteOrderTaker: ['sales-order.create:own', 'customer.read'] } } },
    scopes: { own: { attributes: { salesPersonId: SALES_PERSON }, enter: orderFor } },
  });
});
