import { currentErrors } from '../../lib/envelope/request-scope.js';
import { Output } from '../../lib/envelope/output.js';
import { route } from '../../lib/routing/route.js';

export const GET = route({
  summary: 'Readiness: every store the server needs answers; 503 while one does not.',
  anonymous: true,
  async handle({ services }) {
    try {
      await services.storage.ping();
      return Output.of({ status: 'Healthy' });
    } catch {
      currentErrors().error('External', 'Health_NotReady', 'The database is unreachable; the server is not ready.', { status: 503 });
      return Output.of();
    }
  },
});
