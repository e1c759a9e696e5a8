import type { Middleware, Next } from 'koa';
import type { OperatorAction } from '../../auth/operator-action.js';
import { claimsOperator, operatorAudience, verifyOperator } from '../../auth/operator-token.js';
import type { TokenSettings } from '../../auth/token-keys.js';
import type { AppContext, AppExtensions, AppState } from '../context.js';
import { respond } from '../respond.js';
import { authMessages } from './authenticate.js';
import { NO_ATTRIBUTES } from '../../auth/user-attributes.js';
import { RoleGrants } from '../../auth/permission-grants.js';

function bearerToken(ctx: AppContext): string | undefined {
  const authorization = ctx.get('Authorization');
  return /^bearer\s/i.test(authorization) ? authorization.slice(7).trim() : undefined;
}

/**
 * The gate of a route an operator token may call: a bearer token whose audience says "operator" must be one for
 * `action` at this server's API base (as the request reached it: protocol, host and prefix), else 401; any other
 * caller goes through `callerGate`, the route's ordinary gate. The operator is a principal without roles or user,
 * holding the route's permission (`permission`; the action's name when the route names none) and nothing else.
 */
export function operatorOrCaller(
  settings: TokenSettings, action: OperatorAction, prefix: string, callerGate: Middleware<AppState, AppExtensions>, permission: string = action,
): Middleware<AppState, AppExtensions> {
  const operatorGrants = RoleGrants.only(permission);
  return (ctx: AppContext, next: Next) => {
    const token = bearerToken(ctx);
    if (!token || !claimsOperator(token)) return callerGate(ctx, next);
    const audience = operatorAudience(action, `${ctx.protocol}://${ctx.host}${prefix}`);
    if (!verifyOperator(token, settings, audience)) {
      ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
      respond(ctx, [authMessages.invalid()]);
      return Promise.resolve();
    }
    ctx.state.principal = { userName: 'restlayer-cli', name: 'restlayer CLI', roles: [], authenticationType: 'Bearer', attributes: NO_ATTRIBUTES };
    ctx.state.grants = operatorGrants;
    return next();
  };
}
