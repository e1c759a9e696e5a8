import type { UserInfo } from '../../auth/auth-models.js';
import type { ServerDescription } from '../../routing/route.js';

/**
 * The caller as the login and session routes answer it: every permission its roles grant and, only when tenancy is
 * on, its tenant (contract part 12: news to the browser app then, noise otherwise).
 */
export function userInfoOf(user: Omit<UserInfo, 'permissions'>, server: ServerDescription): UserInfo {
  const { tenantId, ...rest } = user;
  const permissions = [...server.grants.forRoles(user.roles).permissions];
  return { ...rest, permissions, ...(tenantId && server.config.Tenancy.Enabled ? { tenantId } : {}) };
}
