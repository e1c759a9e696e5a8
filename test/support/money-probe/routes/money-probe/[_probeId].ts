import { INT32, integer, model } from 'restlayer';
import { ProbeRowModel as ProbeRow, probeRoute } from '../../module.js';

export const GET = probeRoute({
  summary: 'Read one money probe.',
  // A test probe: any signed-in caller.
  authenticated: true,
  params: model({ _probeId: integer(INT32) }),
  result: ProbeRow,
  handle: ({ params, services }) => services.moneyProbe.read(params._probeId),
});
