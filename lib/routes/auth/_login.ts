import { currentErrors } from '../../envelope/request-scope.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import { Output } from '../../envelope/output.js';
import type { RouteCall } from '../../routing/route.js';
import type { Credentials, LoggedInUser, UserInfo } from '../../auth/auth-models.js';

/**
 * Shared by every login route: reserve an attempt (refused at once past the limits), check the credentials, then
 * settle the reservation (a success gives its points back, a failure keeps them).
 */
export async function login(call: RouteCall<unknown, unknown, Credentials>, type: UserInfo['authenticationType']): Promise<Output<LoggedInUser>> {
  const { services, body, clientAddress } = call;
  const attempt = await services.throttle.reserve(body.userName, clientAddress);
  if (!attempt.allowed) {
    call.header('Retry-After', String(attempt.retryAfter));
    // Not "failed" attempts: the right password is refused too once the limit is reached, and so are more logins of
    // one account at once than the limit, since each holds its place before its check.
    currentErrors().add(MESSAGES.Request_Throttled({ busy: attempt.reason === 'busy', seconds: attempt.retryAfter }));
    // The account name is left out: people type passwords into the name field.
    call.log.info('login refused', { reason: attempt.reason, clientAddress, retryAfter: attempt.retryAfter, requestId: call.requestId });
    services.metrics.logins.inc({ outcome: 'throttled' });
    return Output.of();
  }
  let succeeded = false;
  try {
    const output = await services.login.authenticate(body, type);
    succeeded = output.result !== undefined;
    services.metrics.logins.inc({ outcome: succeeded ? 'success' : 'invalid_credentials' });
    return output;
  } finally {
    await attempt.finish(succeeded);
  }
}
