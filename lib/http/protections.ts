import cors from '@koa/cors';
import type { Middleware, Next } from 'koa';
import helmet from 'koa-helmet';
import { message } from '../envelope/error-message.js';
import type { AppContext, AppExtensions, AppState } from './context.js';
import { respond } from './respond.js';

/**
 * Security headers for a JSON API (koa-helmet): nothing may be framed, sniffed or loaded from a response.
 * HSTS goes out on every response; browsers only honour it over HTTPS.
 */
export function securityHeaders(): Middleware<AppState, AppExtensions> {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginResourcePolicy: { policy: 'same-site' },
  }) as unknown as Middleware<AppState, AppExtensions>;
}

/** CORS for browser apps on the listed origins only (@koa/cors); credentials allowed so cookie login works. */
export function corsFor(origins: readonly string[]): Middleware<AppState, AppExtensions> | undefined {
  if (!origins.length) return undefined;
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    credentials: true,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposeHeaders: ['X-Request-Id', 'Location', 'ETag', 'Retry-After', 'WWW-Authenticate'],
    maxAge: 600,
  }) as unknown as Middleware<AppState, AppExtensions>;
}

/** Query strings past the limit are refused before anything parses them. */
export function queryLimit(maxLength: number): Middleware<AppState, AppExtensions> {
  return async (ctx: AppContext, next: Next) => {
    if (ctx.querystring.length > maxLength) {
      return respond(ctx, [message('Validation', 'Request_UriTooLong', `The query string is longer than the ${maxLength} characters the server accepts.`, { status: 414 })]);
    }
    await next();
  };
}
