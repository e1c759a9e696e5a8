import { notModified, strongETag } from '../etag.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { send as Send } from '@koa/send';
import { hasPackage, requireOptional } from '../optional-package.js';
import type { Middleware, Next } from 'koa';
import type { AppConfig } from '../config/schema.js';
import type { AppContext, AppExtensions, AppState } from './context.js';
import { packagePath } from '../package-paths.js';

/** Where `npm run build` puts the browser app (web/ built by Vite): dist/web, beside dist/lib. */
export const webAppDir = packagePath('dist', 'web');

/** @koa/send (an optional peer dependency), loaded with the first file the app serves. */
const send = () => requireOptional<{ send: typeof Send }>('@koa/send', 'Web:Enabled').send;

/** Where the API goes when the app is served and `RestAPI:Path` is empty: the app owns `/`. */
export const DEFAULT_API_PATH_WITH_WEB = '/api';

/**
 * The page's policy (the API keeps helmet's `default-src 'none'`): scripts, styles, fetches, images and fonts from
 * this origin only, no inline script or style, no plugins, no framing, forms post nowhere else, no <base>.
 */
export const WEB_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed bundles (Vite writes `assets/name-HASH.ext`): their name changes with their content. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and unhashed files: always revalidated, so a new build is picked up at once. */
const REVALIDATE = 'no-cache';

/** `serve --web` and `Web:Enabled`: with the app at `/`, an unprefixed API moves to `/api`. */
export function applyWebDefaults(config: AppConfig): void {
  if (config.Web.Enabled && !config.RestAPI.Path) config.RestAPI.Path = DEFAULT_API_PATH_WITH_WEB;
}

/** Why the app cannot be served (not built), or undefined when it can. */
export function webAppProblem(dir = webAppDir): string | undefined {
  if (!existsSync(join(dir, 'index.html'))) return `Web:Enabled: the browser app is not built (${join(dir, 'index.html')} is missing); run npm run build`;
  // Serving files is the sample app's need alone: its package is an optional peer a dependent project does not install.
  if (!hasPackage('@koa/send')) return 'Web:Enabled needs the package @koa/send, which is not installed: npm install @koa/send';
  return undefined;
}

/** The API base path the app calls, written into index.html's `<meta name="restlayer-api-path">`. */
function withApiPath(html: string, apiPath: string): string {
  const escaped = apiPath.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const tag = /<meta\s+name="restlayer-api-path"\s+content="[^"]*"\s*\/?>/;
  if (!tag.test(html)) throw new Error('web app: index.html has no <meta name="restlayer-api-path"> tag');
  return html.replace(tag, `<meta name="restlayer-api-path" content="${escaped}">`);
}

/** index.html as sent for each content coding, each with its own ETag (a strong ETag names one representation). */
interface IndexVariant {
  body: Buffer;
  etag: string;
  encoding?: 'br' | 'gzip';
}

function indexVariants(html: string): Record<'identity' | 'br' | 'gzip', IndexVariant> {
  return {
    identity: { body: Buffer.from(html), etag: strongETag(html) },
    br: { body: brotliCompressSync(html), etag: strongETag(html, 'br'), encoding: 'br' },
    gzip: { body: gzipSync(html), etag: strongETag(html, 'gz'), encoding: 'gzip' },
  };
}

/** As @koa/send picks for the bundles: brotli when accepted, else gzip when accepted, else none. */
function preferredEncoding(ctx: AppContext): 'br' | 'gzip' | 'identity' {
  if (ctx.acceptsEncodings('br', 'identity') === 'br') return 'br';
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') return 'gzip';
  return 'identity';
}

/**
 * Serves the built browser app (dist/web) at `/` beside the API, which lives under `RestAPI:Path`: GET and HEAD of
 * `/` (and `/index.html`) answer index.html with the API path filled in; other paths answer the file of that name
 * (@koa/send: no dot-files, no way out of the folder). Anything else — every path under the API prefix, other
 * verbs, files that do not exist — goes on to the API, whose envelope answers 404/405; except that a browser
 * navigating to a path outside the API that is nothing gets the app's page with the 404. The app routes in the URL
 * hash (`#/orders/43659`), so no path needs an index.html fallback.
 *
 * Its responses carry the app's own CSP (WEB_APP_CSP, replacing the API's `default-src 'none'`) and cache headers:
 * hashed assets for a year (immutable), index.html and other files `no-cache` (index.html with an ETag). Text is sent
 * compressed to browsers that accept it: the bundles as the `.br`/`.gz` files the build writes beside them
 * (web/vite.config.ts), index.html compressed once here; every answer says `Vary: Accept-Encoding`.
 */
export function webApp(config: Pick<AppConfig, 'RestAPI'>, dir = webAppDir): Middleware<AppState, AppExtensions> {
  const problem = webAppProblem(dir);
  if (problem) throw new Error(problem);
  const apiPath = config.RestAPI.Path;
  const index = indexVariants(withApiPath(readFileSync(join(dir, 'index.html'), 'utf8'), apiPath));
  const underApi = (path: string) => apiPath !== '' && (path === apiPath || path.startsWith(`${apiPath}/`));

  /** index.html with `status`: the page itself (200, or 304 when the browser has it), or the app for a wrong path (404). */
  const sendIndex = (ctx: AppContext, status: 200 | 404) => {
    const variant = index[preferredEncoding(ctx)];
    ctx.set('Content-Security-Policy', WEB_APP_CSP);
    ctx.set('Cache-Control', REVALIDATE);
    ctx.vary('Accept-Encoding');
    ctx.type = 'text/html; charset=utf-8';
    ctx.status = status;
    if (status === 200) {
      ctx.set('ETag', variant.etag);
      if (notModified(ctx.get('If-None-Match'), variant.etag)) {
        ctx.status = 304;
        return;
      }
    }
    if (variant.encoding) ctx.set('Content-Encoding', variant.encoding);
    ctx.body = variant.body;
  };

  /**
   * A path outside the API that is no file: the API's 404 envelope for a program, the app's page (still a 404) for a
   * browser that navigated there, which would otherwise show raw JSON. A browser's navigation prefers text/html;
   * fetch() and scripts, whose Accept is `*\/*` or JSON, keep the envelope.
   */
  const notFound = async (ctx: AppContext, next: Next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null && ctx.accepts('json', 'html') === 'html') sendIndex(ctx, 404);
  };

  return async (ctx: AppContext, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || underApi(ctx.path)) return next();
    if (ctx.path === '/' || ctx.path === '/index.html') return sendIndex(ctx, 200);
    let served: string | undefined;
    try {
      served = await send()(ctx, ctx.path, {
        root: dir,
        index: false,
        format: false,
        setHeaders: (res, path) => res.setHeader('Cache-Control', /[\\/]assets[\\/][^\\/]+-[A-Za-z0-9_-]{8,}\.\w+(\.br|\.gz)?$/.test(path) ? IMMUTABLE : REVALIDATE),
      });
    } catch (err) {
      // Missing (404), outside the folder (403) or undecodable (400): not the app's; the API answers it.
      const status = (err as { status?: number }).status;
      if (status && status >= 400 && status < 500) return notFound(ctx, next);
      throw err;
    }
    if (!served) return notFound(ctx, next);
    ctx.set('Content-Security-Policy', WEB_APP_CSP);
    ctx.vary('Accept-Encoding');
  };
}
