import { Output, integer, model, sql, text } from 'restlayer';
import { probeRoute } from '../../probe-store-module.js';

/** Test-only: `GET /customer-pair/{accountNumber}` counts the customers stored with that account number (any case). */
export const GET = probeRoute({
  summary: 'Count the customers of an account number.',
  // A test probe: any signed-in caller.
  authenticated: true,
  params: model({ _accountNumber: text({ min: 1, max: 15 }) }),
  result: model({ count: integer() }),
  async handle({ params, services }) {
    const { rows } = await sql<{ count: number | string }>`select count(*) as count from customer
      where lower(account_number) = lower(${params._accountNumber})`.execute(services.probeStorage.db);
    return Output.of({ count: Number(rows[0].count) });
  },
});
