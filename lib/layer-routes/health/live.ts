import { Output } from '../../envelope/output.js';
import { route } from '../../routing/route.js';
import { HealthStatus } from './_status.js';

export const GET = route({
  summary: 'Liveness: the process answers.',
  anonymous: true,
  result: HealthStatus,
  handle: async () => Output.of({ status: 'Healthy' }),
});
