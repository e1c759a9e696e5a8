import { Output } from '../../envelope/output.js';
import { route } from '../../routing/route.js';
import { AuthToken, Credentials } from '../../auth/auth-models.js';
import { login } from './_login.js';

export const POST = route({
  summary: 'Log in for a token pair: a short-lived access token and a rotating refresh token.',
  variant: 'A',
  anonymous: true,
  body: Credentials,
  result: AuthToken,
  answers: [401, 429],
  async handle(call) {
    const user = await login(call, 'Bearer');
    if (!user.result) return new Output(undefined, user.messages);
    return call.services.tokens.issue(user.result);
  },
});
