import { Output } from '../../lib/envelope/output.js';
import { route } from '../../lib/routing/route.js';

export const GET = route({
  summary: 'Liveness: the process answers.',
  anonymous: true,
  handle: async () => Output.of({ status: 'Healthy' }),
});
