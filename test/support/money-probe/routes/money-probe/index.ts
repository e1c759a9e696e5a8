import { array, maybe, model, money, optional, text } from 'restlayer';
import { ProbeRowModel as ProbeRow, moneyProbe, probeRoute } from '../../module.js';

// The list is the declaration's: its criteria, sort, cursors and counts.
export const { GET } = moneyProbe.routes.collection;

export const POST = probeRoute({
  summary: 'Store an amount, or the decimal sum of parts.',
  // A test probe: any signed-in caller.
  authenticated: true,
  body: model({
    label: text({ min: 1, max: 50 }),
    amount: maybe(money()),
    parts: optional(array(money())),
    // A field of its own limits: 0 to 1000, cents only.
    fee: maybe(money({ min: 0, max: 1000, scale: 2 })),
  }),
  result: ProbeRow,
  async handle({ body, services, created }) {
    const output = await services.moneyProbe.createFrom(body.label, body.amount ?? undefined, body.parts ?? []);
    if (output.result) created(`/money-probe/${output.result.probeId}`);
    return output;
  },
});
