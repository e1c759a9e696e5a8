import { array, maybe, model, money, optional, text } from 'restlayer';
import { ProbeRowModel as ProbeRow, probeCriteria, probeRoute } from '../../module.js';


export const GET = probeRoute({
  summary: 'List money probes.',
  // A test probe: any signed-in caller.
  authenticated: true,
  query: probeCriteria,
  result: array(ProbeRow),
  handle: ({ query, services }) => services.moneyProbe.readList(query),
});

export const POST = probeRoute({
  summary: 'Store an amount, or the decimal sum of parts.',
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
    const output = await services.moneyProbe.create(body.label, body.amount ?? undefined, body.parts ?? []);
    if (output.result) created(`/money-probe/${output.result.probeId}`);
    return output;
  },
});
