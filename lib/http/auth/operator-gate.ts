import { isIP } from 'node:net';
import type { Middleware, Next } from 'koa';
import type { OperatorAction } from '../../auth/operator-action.js';
import { claimsOperator, operatorAudience, verifyOperator } from '../../auth/operator-token.js';
import type { TokenSettings } from '../../auth/token-keys.js';
import type { UsedTokenIds } from '../../auth/used-token-ids.js';
import type { AppContext, AppExtensions, AppState } from '../context.js';
import { respond } from '../respond.js';
import { authMessages } from './authenticate.js';
import { NO_ATTRIBUTES } from '../../auth/user-attributes.js';
import { RoleGrants } from '../../auth/permission-grants.js';

function bearerToken(ctx: AppContext): string | undefined {
  const authorization = ctx.get('Authorization');
  return /^bearer\s/i.test(authorization) ? authorization.slice(7).trim() : undefined;
}

/** Where this server answers to operator tokens: its configured public URL (Server:PublicUrl, '' for none) and prefix. */
export interface OperatorBases {
  publicUrl: string;
  prefix: string;
}

/** Whether `address` (a socket's peer) is this machine: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6. */
function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return (isIP(v4) === 4 && v4.startsWith('127.')) || address === '::1';
}

/** The names the CLI on this machine may give the server by (its default URL is http://127.0.0.1:<port>). */
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The API base URLs an operator token must name to be accepted on this request, from what the caller does not
 * control: the configured public URL, and, for a connection from this machine, the loopback URL of the port it came
 * in on. Never the Host or X-Forwarded-Host header: a relay that forwards a token sent to it sets those to the real
 * server's, and would otherwise be answered (issue 37, finding 4).
 */
function acceptedBases(ctx: AppContext, bases: OperatorBases): string[] {
  const accepted = bases.publicUrl ? [bases.publicUrl.replace(/\/+$/, '') + bases.prefix] : [];
  const socket = ctx.req.socket;
  if (isLoopback(socket.remoteAddress) && socket.localPort) {
    for (const host of LOOPBACK_HOSTS) accepted.push(`http://${host}:${socket.localPort}${bases.prefix}`);
  }
  return accepted;
}

/**
 * The gate of a route an operator token may call: a bearer token whose audience says "operator" must be one for
 * `action` at one of this server's API bases (acceptedBases), for exactly this request's target (its path
 * parameters: the user to unlock, the table to flush), and never used before (`usedIds`, shared by every instance
 * and worker), else 401; any other caller goes through `callerGate`, the route's ordinary gate. The operator is a
 * principal without roles or user, holding the route's permission (`permission`; the action's name when the route
 * names none) and nothing else.
 */
export function operatorOrCaller(
  settings: TokenSettings, action: OperatorAction, bases: OperatorBases, usedIds: UsedTokenIds,
  callerGate: Middleware<AppState, AppExtensions>, permission: string = action,
): Middleware<AppState, AppExtensions> {
  const operatorGrants = RoleGrants.only(permission);
  const refuse = (ctx: AppContext) => {
    ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
    respond(ctx, [authMessages.invalid()]);
  };
  return async (ctx: AppContext, next: Next) => {
    const token = bearerToken(ctx);
    if (!token || !claimsOperator(token)) return callerGate(ctx, next);
    const audiences = acceptedBases(ctx, bases).map((base) => operatorAudience(action, base));
    const target = (ctx as AppContext & { params?: Record<string, string> }).params ?? {};
    const claims = verifyOperator(token, settings, audiences, target);
    // The id is spent only by a token that holds otherwise: a refused one cannot use up a good one's id.
    if (!claims || !(await usedIds.firstUse(claims.jti))) return refuse(ctx);
    ctx.state.principal = { userName: 'restlayer-cli', name: 'restlayer CLI', roles: [], authenticationType: 'Bearer', attributes: NO_ATTRIBUTES };
    ctx.state.grants = operatorGrants;
    return next();
  };
}
