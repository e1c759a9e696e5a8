import { sql } from 'restlayer';
import { type TestServer, resourceSuite } from 'restlayer/testing';
import { application } from '../../services/index.js';
import { salesOrder } from '../../services/sales-order/sales-order.js';
import { describeStores } from '../support/stores.js';

/** The sales person the suite's scoped caller stands for (an entry of lookup table sales-person). */
const SALES_PERSON = 279;

/** Record n's customer: one of its own (the suite's store has no sample data), made once. */
const customers = new Map<number, number>();
async function customerOf(server: TestServer, n: number): Promise<number> {
  if (!customers.has(n)) {
    const { rows } = await sql<{ id: number }>`insert into customer (name, territory_id)
      values (${`Suite customer ${n} ${Date.now()}`}, ${1 + (n % 10)}) returning customer_id as id`
      .execute(server.infrastructure.storage.db);
    customers.set(n, Number(rows[0].id));
  }
  return customers.get(n)!;
}

/**
 * The shared suite of restlayer/testing over the sales order declaration, on every store, with the sample's own
 * valid orders (its rules forbid generated ones: an active status, an existing customer, active products): CRUD,
 * validation of each field (a lookup refused in its own words), criteria (salesPersonId, which only a scoped creator
 * sets, by NL and NNL alone), sorts, paging, cursors, history, the lines, permissions and the SalesPerson's scope.
 * The contract's own texts for orders stay in test/core/sales-order-crud.test.ts and test/sales-order/.
 */
describeStores('sales order declaration', () => {
  resourceSuite({
    application,
    resource: salesOrder,
    sample: async (n, server) => ({
      customerId: await customerOf(server, n), status: 1 + (n % 5), onlineOrderFlag: n % 2 === 0, comment: `suite ${n}`,
      lines: [{ productId: 707 + (n % 3), orderQty: 1 + n, unitPrice: 10 + n }, { productId: 712, orderQty: 2 }],
    }),
    scopes: {
      own: {
        attributes: { salesPersonId: String(SALES_PERSON) },
        // An order is the sales person's own when it names them (written behind the API: only a scoped creator sets it).
        async enter(server, id) {
          await sql`update sales_order set sales_person_id = ${SALES_PERSON} where sales_order_id = ${id}`.execute(server.infrastructure.storage.db);
        },
      },
    },
  });
});
