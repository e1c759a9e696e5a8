import { optional } from 'superstruct';
import { Output } from '../../envelope/output.js';
import { route } from '../../routing/route.js';
import { model } from '../../validation/fields.js';

export const POST = route({
  summary: 'Log out: ends the cookie session, or the login session of the bearer token.',
  variant: 'A',
  // About the caller itself: open to any signed-in caller, whatever their roles.
  authenticated: true,
  body: optional(model({})),
  async handle({ principal, services, signOut }) {
    if (principal?.authenticationType === 'Cookies') await signOut();
    else if (principal?.sessionId) await services.tokens.revokeSession(principal.sessionId);
    return Output.of();
  },
});
