import { currentErrors } from '../../envelope/request-scope.js';
import { Output } from '../../envelope/output.js';
import type { RouteCall } from '../../routing/route.js';
import type { Credentials, UserInfo } from '../../auth/auth-models.js';

/** Shared by every login route: throttle first, then check the credentials, then count the outcome. */
export async function login(call: RouteCall<unknown, unknown, Credentials>, type: UserInfo['authenticationType']): Promise<Output<UserInfo>> {
  const { services, body, clientAddress } = call;
  const wait = await services.throttle.retryAfter(body.userName, clientAddress);
  if (wait > 0) {
    call.header('Retry-After', String(wait));
    currentErrors().error('Security', 'Request_Throttled', `Too many failed login attempts. Try again in ${wait} seconds.`, { status: 429 });
    return Output.of();
  }
  const output = await services.login.authenticate(body, type);
  if (output.result) await services.throttle.succeeded(body.userName);
  else await services.throttle.failed(body.userName, clientAddress);
  return output;
}
