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
    const [database, cache] = await Promise.allSettled([services.storage.ping(), services.shared.ping()]);
    const down = [database.status === 'rejected' && 'the database', cache.status === 'rejected' && 'Redis'].filter((name) => name !== false);
    if (!down.length) return Output.of({ status: 'Healthy' });
    currentErrors().add(MESSAGES.Health_NotReady({ down }));
    return Output.of();
  },
});
