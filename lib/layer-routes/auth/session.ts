import { UserInfo } from '../../auth/auth-models.js';
import { Output } from '../../envelope/output.js';
import { route } from '../../routing/route.js';
import { userInfoOf } from './_user-info.js';

/**
 * "Who am I", for a browser app starting up: it cannot read its HttpOnly cookie, and asking a secured route would
 * log a 401 in the console of every first visit. Anyone may ask; the answer names no one unless the credentials
 * sent are valid.
 */
export const GET = route({
  summary: 'The caller: the user of the session cookie or bearer token sent, or no result (200) for a caller without valid credentials.',
  variant: 'A',
  anonymous: true,
  identifies: true,
  result: UserInfo,
  async handle({ principal, server }) {
    if (!principal) return Output.of<UserInfo | undefined>(undefined);
    const { userName, name, roles, authenticationType, tenantId } = principal;
    return Output.of<UserInfo | undefined>(userInfoOf({ userName, name, roles, authenticationType, ...(tenantId ? { tenantId } : {}) }, server));
  },
});
