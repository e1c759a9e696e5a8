import { SESSION_COOKIE } from './session-cookie.js';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import createSession from 'koa-session';
import type { CookieSessionData, ICookieSessionStore } from '../../auth/cookie-session-store.js';
import type { AppContext, AppExtensions, AppState } from '../context.js';


/** The cookie login's server-side session as koa-session hands it to a request (not the client's CookieSession). */
export interface KoaCookieSession extends CookieSessionData {
  regenerate(): Promise<void>;
}

export interface CookieSessionOptions {
  store: ICookieSessionStore;
  idleMinutes: number;
}

/**
 * koa-session with the session kept server-side: the signed, HttpOnly, SameSite=Lax cookie carries only the key;
 * Secure is set whenever the request came over HTTPS. The idle lifetime renews as the session is used.
 */
export function cookieSessions(app: Koa<AppState, AppExtensions>, options: CookieSessionOptions): Middleware<AppState, AppExtensions> {
  // The key each request loaded its session under: saving that key again is a renewal, which must not recreate a
  // session ended meanwhile; any other key is a new session (a login).
  const loaded = new WeakMap<object, string>();
  const middleware = createSession({
    key: SESSION_COOKIE,
    maxAge: options.idleMinutes * 60_000,
    httpOnly: true,
    signed: true,
    sameSite: 'lax',
    renew: true,
    store: {
      async get(key: string, _maxAge: number, { ctx }: { ctx: object }) {
        const session = await options.store.get(key);
        if (session) loaded.set(ctx, key);
        return session;
      },
      set: (key: string, session: CookieSessionData, maxAge: number, { ctx }: { ctx: object }) =>
        loaded.get(ctx) === key ? options.store.renew(key, session, maxAge) : options.store.set(key, session, maxAge),
      destroy: (key: string) => options.store.destroy(key),
    },
  }, app as never) as Middleware<AppState, AppExtensions>;
  // A bearer call without cookies has no session to load or save: skip the store round trip and the commit.
  return (ctx, next) => (ctx.get('Authorization') && !ctx.get('Cookie') ? next() : middleware(ctx, next));
}

type WithSession = AppContext & { session?: KoaCookieSession | null };

export function hasCookieSessions(ctx: AppContext): boolean {
  return (ctx as WithSession).session !== undefined;
}

export function cookieSession(ctx: AppContext): KoaCookieSession {
  const session = (ctx as WithSession).session;
  if (!session) throw new Error('Cookie sessions are only available under Authentication:Variant A.');
  return session;
}

export function endCookieSession(ctx: AppContext): void {
  if (hasCookieSessions(ctx)) (ctx as WithSession).session = null;
}
