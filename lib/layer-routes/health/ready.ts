import { currentErrors } from '../../envelope/request-scope.js';
import { Output } from '../../envelope/output.js';
import { route } from '../../routing/route.js';
import { HealthStatus } from './_status.js';

export const GET = route({
  summary: 'Readiness: every store the server needs answers; 503 while one does not.',
  anonymous: true,
  result: HealthStatus,
  answers: [503],
  async handle({ services }) {
    const down = await services.health.unreachable();
    if (!down.length) return Output.of({ status: 'Healthy' });
    currentErrors().error('External', 'Health_NotReady', `${down.join(' and ')} unreachable: the server is not ready.`, { status: 503 });
    return Output.of();
  },
});
