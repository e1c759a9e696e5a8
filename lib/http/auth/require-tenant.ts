import type { Middleware, Next } from 'koa';
import type { AppContext, AppExtensions, AppState } from '../context.js';
import { respond } from '../respond.js';
import { authMessages } from './authenticate.js';

/**
 * With `Tenancy:Enabled`, on a route of a tenant-owned resource (`route.tenant`), after the caller's gate: a caller
 * without a tenant reaches none of its records, so every such route answers 403 Security_Forbidden (unknown ids
 * included: the answer tells nothing of which exist), before the body is read (contract part 12).
 */
export const requireTenant: Middleware<AppState, AppExtensions> = (ctx: AppContext, next: Next) => {
  if (!ctx.state.principal?.tenantId) return respond(ctx, [authMessages.forbidden()]);
  return next();
};
