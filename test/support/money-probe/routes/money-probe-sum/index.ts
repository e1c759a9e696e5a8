import { integer, model, money } from 'restlayer';
import { probeRoute } from '../../module.js';

export const GET = probeRoute({
  summary: "The store's SUM of the probes with one label.",
  // A test probe: any signed-in caller.
  authenticated: true,
  query: { parse: (search: URLSearchParams) => ({ ok: true as const, value: { label: search.get('label') ?? '' } }) },
  result: model({ total: money(), count: integer() }),
  handle: ({ query, services }) => services.moneyProbe.sum(query.label),
});
