import { integer, model, money } from 'restlayer';
import { probeRoute } from '../../module.js';

export const POST = probeRoute({
  summary: "A line's total: orderQty × unitPrice × (1 − unitPriceDiscount), rounded half away from zero.",
  // A test probe: any signed-in caller.
  authenticated: true,
  body: model({ orderQty: integer({ min: 1, max: 32767 }), unitPrice: money({ min: 0 }), unitPriceDiscount: money({ min: 0, max: 0.9999 }) }),
  result: model({ lineTotal: money() }),
  handle: ({ body, services }) => services.moneyProbe.lineTotal(body.orderQty, body.unitPrice, body.unitPriceDiscount),
});

