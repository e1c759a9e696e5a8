import { currentErrors } from '../../envelope/request-scope.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
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
    currentErrors().add(MESSAGES.Health_NotReady({ down }));
    return Output.of();
  },
});
