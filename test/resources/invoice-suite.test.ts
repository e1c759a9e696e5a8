import { fileURLToPath } from 'node:url';
import { sql } from 'restlayer';
import { type TestServer, resourceSuite } from 'restlayer/testing';
import { application } from '../../services/index.js';
import { invoice, invoiceModule } from '../support/invoice-module.js';
import { describeStores } from '../support/stores.js';

const routesDir = fileURLToPath(new URL('../support/invoice-routes/', import.meta.url));

/** Record n's customer: one of its own (the suite's store has no sample data), made once per server. */
const customers = new WeakMap<TestServer, Map<number, number>>();
async function customerOf(server: TestServer, n: number): Promise<number> {
  const made = customers.get(server) ?? new Map<number, number>();
  customers.set(server, made);
  if (!made.has(n)) {
    const { rows } = await sql<{ id: number }>`insert into customer (name, territory_id)
      values (${`Invoice suite customer ${n}`}, ${1 + (n % 10)}) returning customer_id as id`
      .execute(server.infrastructure.storage.db);
    made.set(n, Number(rows[0].id));
  }
  return made.get(n)!;
}

/**
 * The shared suite of restlayer/testing over the test invoice (test/support/invoice-module.ts), whose actions are a
 * one-word one (pay: path pay, permission invoice.pay) and a multi-word one (markPaid: path mark-paid, permission
 * invoice.mark-paid): each action's route, permission and reach are checked where its wire names are. Its own
 * customers, as its store has no sample data.
 */
describeStores('test invoice declaration', () => {
  resourceSuite({
    application: { modules: [...application.modules, invoiceModule], routesDir },
    resource: invoice,
    sample: async (n, server) => ({
      customerId: await customerOf(server, n), freight: n, currencyCode: n % 2 ? 'USD' : 'EUR',
      lines: [{ description: `line ${n}`, quantity: 1 + n, unitPrice: 1.25 }, { description: 'fee', quantity: 1, unitPrice: 0.5 }],
    }),
  });
});
