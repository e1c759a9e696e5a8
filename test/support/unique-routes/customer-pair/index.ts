import { Output, array, boolean, currentErrors, inTransaction, integer, model, optional, text } from 'restlayer';
import { probeRoute } from '../../probe-store-module.js';
import type { DbDate, Generated } from 'restlayer';

/** The columns of the sample's customer table this probe writes (a test's own SQL, beside the customer resource). */
type CustomerTables = {
  customer: { customer_id: Generated<number>; name: string; account_number: string | null; revision_number: number; modified_date: DbDate };
};

/**
 * Test-only (served with `startTestServer({ routesDir })`): `POST /customer-pair` inserts two customers in one
 * transaction (`inTransaction`), as a team's service writes several rows that stand or fall together. `refuse` records
 * an error after both inserts and aborts: nothing of the pair may stay.
 */
export const POST = probeRoute({
  summary: 'Insert two customers in one transaction.',
  // A test probe: any signed-in caller.
  authenticated: true,
  body: model({ first: text({ min: 1, max: 15 }), second: text({ min: 1, max: 15 }), refuse: optional(boolean()) }),
  result: model({ customerIds: array(integer()) }),
  async handle({ body, services }) {
    const storage = services.probeStorage;
    const customerIds = await inTransaction(storage.db.withTables<CustomerTables>(), async (trx) => {
      const insert = async (accountNumber: string) => (await trx.insertInto('customer')
        .values({ name: 'Pair', account_number: accountNumber, revision_number: 1, modified_date: storage.values.date(new Date()) })
        .returning('customer_id')
        .executeTakeFirstOrThrow()).customer_id;
      const ids = [await insert(body.first), await insert(body.second)];
      if (body.refuse) {
        currentErrors().error('Functional', 'Pair_Refused', 'The pair is refused after both inserts.');
        currentErrors().abortIfHasErrors();
      }
      return ids;
    });
    return Output.of({ customerIds });
  },
});
