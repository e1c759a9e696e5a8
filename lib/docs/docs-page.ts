import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppContext, AppExtensions, AppState } from '../http/context.js';
import { notModified, strongETag } from '../etag.js';
import { WEB_APP_CSP } from '../http/web-app.js';
import { servedDocument } from '../openapi/served-document.js';
import { type DocsAsset, docsAssets, docsPageAvailable } from './docs-assets.js';

/**
 * The browser app's policy (everything from this origin only, no inline script or style, no eval; the API keeps
 * helmet's `default-src 'none'`), plus `data:` images: Swagger UI's stylesheet draws its icons as `data:` SVGs.
 */
export const DOCS_CSP = WEB_APP_CSP.replace("img-src 'self'", "img-src 'self' data:");

/** Asset URLs carry their content hash, so they never change and may be kept for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/**
 * The page and the bare document: always revalidated (ETag), so a new build or route shows at once; behind the
 * PublicDocs gate, kept by the caller's browser only, never by a shared cache that would hand them to anyone.
 */
const revalidate = (gated: boolean) => (gated ? 'private, no-cache' : 'no-cache');

type DocsMiddleware = Middleware<AppState, AppExtensions>;

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function pageHtml(prefix: string, title: string, assets: ReadonlyMap<string, DocsAsset>): string {
  const url = (name: string) => escapeHtml(`${prefix}/docs/assets/${assets.get(name)!.hash}/${name}`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} API reference</title>
<link rel="stylesheet" href="${url('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${url('favicon-32x32.png')}">
</head>
<body>
<div id="swagger-ui" data-spec="${escapeHtml(`${prefix}/docs/openapi.json`)}"></div>
<script src="${url('swagger-ui-bundle.js')}"></script>
<script src="${url('docs.js')}"></script>
</body>
</html>
`;
}

/** Answers `body` with a strong ETag, or 304 when the caller has it already. */
function sendRevalidated(ctx: AppContext, type: string, body: string, etag: string, gated: boolean): void {
  ctx.set('Cache-Control', revalidate(gated));
  ctx.set('ETag', etag);
  ctx.set('Content-Security-Policy', DOCS_CSP);
  if (notModified(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = body;
}

/**
 * The interactive API reference (Swagger UI, served from swagger-ui-dist, nothing from elsewhere) under the prefix:
 * `GET /docs` the page, `GET /docs/openapi.json` the bare document it renders (the envelope of `/openapi.json`
 * is not a document a renderer reads), `GET /docs/assets/{hash}/{file}` its scripts and styles. `gate` is what
 * every route of the API runs first: nothing when RestAPI:PublicDocs is true, the caller check otherwise. Without
 * swagger-ui-dist (an optional peer dependency) only the document is served; the answer says whether the page is.
 */
export function registerDocs(router: Router<AppState, AppExtensions>, prefix: string, gate: DocsMiddleware[]): boolean {
  router.get('/docs/openapi.json', ...gate, (ctx) => {
    const { document, etag } = servedDocument(ctx.server);
    // Not the tag of /openapi.json: that is the envelope, another representation.
    sendRevalidated(ctx, 'application/json; charset=utf-8', JSON.stringify(document), etag.replace(/"$/, '-bare"'), gate.length > 0);
  });
  if (!docsPageAvailable()) return false;
  let page: { html: string; etag: string } | undefined;
  router.get('/docs', ...gate, (ctx) => {
    if (!page) {
      const html = pageHtml(prefix, servedDocument(ctx.server).title, docsAssets());
      page = { html, etag: strongETag(html) };
    }
    sendRevalidated(ctx, 'text/html; charset=utf-8', page.html, page.etag, gate.length > 0);
  });
  router.get('/docs/assets/:hash/:name', ...gate, (ctx, next) => {
    const asset = docsAssets().get(ctx.params.name);
    // An old or made-up hash is an unknown path: the envelope 404 answers it.
    if (!asset || asset.hash !== ctx.params.hash) return next();
    ctx.set('Cache-Control', IMMUTABLE);
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
  return true;
}
