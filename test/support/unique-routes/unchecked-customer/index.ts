import { Output, model, text } from 'restlayer';
import { probeRoute } from '../../probe-store-module.js';
import type { DbDate, Generated } from 'restlayer';

/** The columns of the sample's customer table this probe writes (a test's own SQL, beside the customer resource). */
type CustomerTables = {
  customer: { customer_id: Generated<number>; name: string; account_number: string | null; revision_number: number; modified_date: DbDate };
};

/**
 * Test-only (served with `startTestServer({ routesDir })`): `POST /unchecked-customer` inserts a customer with no check
 * of its own, like a team's service that leaves uniqueness to its index; the layer answers the index's violation.
 */
export const POST = probeRoute({
  summary: 'Insert a customer without checking its account number first.',
  // A test probe: any signed-in caller.
  authenticated: true,
  body: model({ accountNumber: text({ min: 1, max: 15 }) }),
  result: model({ customerId: text() }),
  async handle({ body, services, created }) {
    const { customer_id } = await services.probeStorage.db.withTables<CustomerTables>().insertInto('customer')
      .values({ name: 'Unchecked', account_number: body.accountNumber, revision_number: 1, modified_date: services.probeStorage.values.date(new Date()) })
      .returning('customer_id')
      .executeTakeFirstOrThrow();
    created(`/customer/${customer_id}`);
    return Output.of({ customerId: String(customer_id) });
  },
});
