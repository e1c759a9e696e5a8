import { Output } from '../../envelope/output.js';
import { route } from '../../routing/route.js';
import { Credentials, UserInfo } from '../../auth/auth-models.js';
import { login } from './_login.js';
import { userInfoOf } from './_user-info.js';

export const POST = route({
  summary: 'Log in with a session cookie; answers the user.',
  variant: 'A',
  anonymous: true,
  body: Credentials,
  result: UserInfo,
  // 401 Login_InvalidCredentials; 429 Request_Throttled with Retry-After.
  answers: [401, 429],
  async handle(call) {
    const output = await login(call, 'Cookies');
    if (!output.result) return new Output(undefined, output.messages);
    // The stamp stays in the server-side session; the answer is the user alone.
    const { stamp, ...user } = output.result;
    await call.signIn({ userName: user.userName, name: user.name, roles: user.roles, stamp, ...(user.tenantId ? { tenantId: user.tenantId } : {}) });
    return new Output<UserInfo>(userInfoOf(user, call.server), output.messages);
  },
});
