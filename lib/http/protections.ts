import cors from '@koa/cors';
import type { Middleware, Next } from 'koa';
import helmet from 'helmet';
import { MESSAGES } from '../envelope/message-catalogue.js';
import type { AppContext, AppExtensions, AppState } from './context.js';
import { respond } from './respond.js';

/**
 * Security headers for a JSON API, as helmet writes them: nothing may be framed, sniffed or loaded from a response.
 * HSTS is split off and sent only on requests that came over HTTPS (RFC 6797 8.1: a host must not send it over
 * plain HTTP, where a man in the middle could forge or strip it anyway).
 */
const helmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'same-site' as const },
};

const HSTS = 'strict-transport-security';

let fixedHeaders: [string, string][] | undefined;
let hstsHeader: [string, string] | undefined;

/**
 * Helmet's headers as name/value pairs, but for HSTS. They never depend on the request, so helmet runs once, on a
 * stand-in response, instead of once per request (a dozen middleware calls each time); answers written straight to a
 * socket (malformed HTTP, 431) use the same pairs: they cannot tell whether a proxy in front spoke HTTPS.
 */
export function securityHeaderPairs(): [string, string][] {
  if (!fixedHeaders) {
    const pairs: [string, string][] = [];
    const response = {
      setHeader: (name: string, value: string | number | string[]) => pairs.push([name, Array.isArray(value) ? value.join(', ') : String(value)]),
      removeHeader: (name: string) => pairs.splice(0, pairs.length, ...pairs.filter(([n]) => n.toLowerCase() !== name.toLowerCase())),
    };
    (helmet(helmetOptions) as unknown as (req: object, res: object, next: (err?: unknown) => void) => void)({ headers: {} }, response, () => {});
    hstsHeader = pairs.find(([name]) => name.toLowerCase() === HSTS);
    fixedHeaders = pairs.filter((pair) => pair !== hstsHeader);
  }
  return fixedHeaders;
}

/** Helmet's headers; HSTS too when the request is secure (`ctx.secure` reads X-Forwarded-Proto only with `Server:TrustProxy`). */
export function setSecurityHeaders(ctx: AppContext): void {
  for (const [name, value] of securityHeaderPairs()) ctx.res.setHeader(name, value);
  if (hstsHeader && ctx.secure) ctx.res.setHeader(hstsHeader[0], hstsHeader[1]);
}

/** CORS for browser apps on the listed origins only (@koa/cors); credentials allowed so cookie login works. */
export function corsFor(origins: readonly string[]): Middleware<AppState, AppExtensions> | undefined {
  if (!origins.length) return undefined;
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    credentials: true,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposeHeaders: ['X-Request-Id', 'Location', 'ETag', 'Retry-After', 'WWW-Authenticate', 'Idempotent-Replayed'],
    maxAge: 600,
  }) as unknown as Middleware<AppState, AppExtensions>;
}

/** Query strings past the limit are refused before anything parses them. */
export function queryLimit(maxLength: number): Middleware<AppState, AppExtensions> {
  return (ctx: AppContext, next: Next) => {
    if (ctx.querystring.length <= maxLength) return next();
    respond(ctx, [MESSAGES.Request_UriTooLong({ maxLength })]);
  };
}
