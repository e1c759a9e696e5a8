import { Output } from '../../envelope/output.js';
import { route } from '../../routing/route.js';

export const GET = route({
  summary: 'Liveness: the process answers.',
  anonymous: true,
  handle: async () => Output.of({ status: 'Healthy' }),
});
