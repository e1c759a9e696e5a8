import { route } from '../../routing/route.js';
import { Credentials } from '../../auth/auth-models.js';
import { login } from './_login.js';

export const POST = route({
  summary: 'Log in with a session cookie; answers the user.',
  variant: 'A',
  anonymous: true,
  body: Credentials,
  async handle(call) {
    const output = await login(call, 'Cookies');
    if (output.result) await call.signIn(output.result);
    return output;
  },
});
