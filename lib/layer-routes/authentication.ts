import { Output } from '../envelope/output.js';
import { route } from '../routing/route.js';
import { Credentials } from '../auth/auth-models.js';
import { text } from '../validation/fields.js';
import { login } from './auth/_login.js';

export const POST = route({
  summary: 'Log in for a JWT (variant B); its issuer, audience and lifetime come from AuthConfig.',
  variant: 'B',
  anonymous: true,
  body: Credentials,
  // The JWT itself.
  result: text(),
  answers: [401, 429],
  async handle(call) {
    const user = await login(call, 'Bearer');
    if (!user.result) return new Output(undefined, user.messages);
    return call.services.tokens.accessToken(user.result);
  },
});
