import { boolean } from 'superstruct';
import { Output } from '../../../envelope/output.js';
import { route } from '../../../routing/route.js';
import { model, text } from '../../../validation/fields.js';

const UnlockResult = model({ address: text(), cleared: boolean() });

/**
 * `restlayer user unlock-address ADDRESS` through the running server, for counters only a server reaches (in its
 * memory, or on its `--workers` primary); with Redis the CLI clears them itself. After AddressFailures failed logins
 * from one address, everyone behind it (an office behind one NAT or proxy) is refused for the window: this lets them in.
 */
export const DELETE = route({
  summary: 'Clear the failed logins counted against a client address (login throttling); cleared says whether any were counted.',
  permission: 'login-throttle.unlock',
  operator: 'login-throttle.unlock',
  params: model({ address: text({ min: 1, max: 100 }) }),
  result: UnlockResult,
  async handle({ params, services }) {
    return Output.of({ address: params.address, cleared: await services.loginAttempts.unlockAddress(params.address) });
  },
});
