import { currentErrors } from '../../envelope/request-scope.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import { Output } from '../../envelope/output.js';
import type { RouteCall } from '../../routing/route.js';
import type { Credentials, LoggedInUser, UserInfo } from '../../auth/auth-models.js';

/** Shared by every login route: the attempt under the throttle (lib/auth/login-attempts.ts), a refusal as 429. */
export async function login(call: RouteCall<unknown, unknown, Credentials>, type: UserInfo['authenticationType']): Promise<Output<LoggedInUser>> {
  const { services, body, clientAddress } = call;
  const attempt = await services.loginAttempts.attempt(body, type, clientAddress);
  if (!attempt.refused) return attempt.output;
  call.header('Retry-After', String(attempt.retryAfter));
  // Not "failed" attempts: the right password is refused too once the limit is reached, and so are more logins of
  // one account at once than the limit, since each holds its place before its check.
  currentErrors().add(MESSAGES.Request_Throttled({ busy: attempt.reason === 'busy', seconds: attempt.retryAfter }));
  // The account name is left out: people type passwords into the name field.
  call.log.info('login refused', { reason: attempt.reason, clientAddress, retryAfter: attempt.retryAfter, requestId: call.requestId });
  return Output.of();
}
