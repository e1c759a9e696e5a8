import { boolean } from 'superstruct';
import { Output } from '../../envelope/output.js';
import { route } from '../../routing/route.js';
import { model, text } from '../../validation/fields.js';

const UnlockResult = model({ userName: text(), cleared: boolean() });

/**
 * `restlayer user unlock NAME` through the running server, for counters only a server reaches: in its memory, or
 * on its `--workers` primary (every worker's counters). With Redis the CLI clears them itself.
 */
export const DELETE = route({
  summary: 'Clear the failed logins counted against an account (login throttling); cleared says whether any were counted.',
  permission: 'login-throttle.unlock',
  operator: 'login-throttle.unlock',
  params: model({ userName: text({ min: 1, max: 100 }) }),
  result: UnlockResult,
  answers: [404],
  async handle({ params, services }) {
    const found = await services.users.read(params.userName);
    if (!found.result) return new Output<{ userName: string; cleared: boolean }>(undefined, found.messages);
    return Output.of({ userName: found.result.userName, cleared: await services.loginAttempts.unlock(params.userName) });
  },
});
