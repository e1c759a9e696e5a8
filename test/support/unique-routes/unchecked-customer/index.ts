import { Output, model, route, text } from 'restlayer';
import type { CustomerTables } from '../../../../services/customer/customer-tables.js';

/**
 * Test-only (served with `startTestServer({ routesDir })`): `POST /unchecked-customer` inserts a customer with no check
 * of its own, like a team's service that leaves uniqueness to its index; the layer answers the index's violation.
 */
export const POST = route({
  summary: 'Insert a customer without checking its account number first.',
  body: model({ accountNumber: text({ min: 1, max: 15 }) }),
  result: model({ customerId: text() }),
  async handle({ body, services, created }) {
    const { customer_id } = await services.storage.db.withTables<CustomerTables>().insertInto('customer')
      .values({ name: 'Unchecked', account_number: body.accountNumber, revision_number: 1, modified_date: services.storage.values.date(new Date()) })
      .returning('customer_id')
      .executeTakeFirstOrThrow();
    created(`/customer/${customer_id}`);
    return Output.of({ customerId: String(customer_id) });
  },
});
