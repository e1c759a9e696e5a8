import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MissingPackage, hasPackage } from '../optional-package.js';
import { dirname, join } from 'node:path';

/** One file of the /docs page, held in memory with the hash its URL carries. */
export interface DocsAsset {
  name: string;
  type: string;
  body: Buffer;
  hash: string;
}

/**
 * Starts Swagger UI on the page's `#swagger-ui` element with the bare document named by its `data-spec`. Kept in a
 * file of its own so the page needs no inline script (the CSP forbids it). No validator badge (it would send the
 * document to validator.swagger.io), no query-string configuration (a `?url=` link could show a foreign spec), and
 * cookies go along with "try it" so a cookie login works as well as a bearer token from "Authorize". Extensions are
 * shown: each operation lists its `x-permission` (and `x-scopes`), besides the description that names them.
 */
const INITIALIZER = `"use strict";
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-spec'),
    domNode: root,
    validatorUrl: null,
    queryConfigEnabled: false,
    deepLinking: true,
    withCredentials: true,
    displayRequestDuration: true,
    showExtensions: true
  });
})();
`;

/** Whether the page can be served: its assets come from swagger-ui-dist, an optional peer dependency. */
export const docsPageAvailable = (): boolean => hasPackage('swagger-ui-dist');

function asset(name: string, type: string, body: Buffer): DocsAsset {
  return { name, type, body, hash: createHash('sha256').update(body).digest('base64url').slice(0, 16) };
}

let loaded: ReadonlyMap<string, DocsAsset> | undefined;

/** The page's files, by name; read on first use (the bundle is 1.7 MB and most servers never show the page). */
export function docsAssets(): ReadonlyMap<string, DocsAsset> {
  if (!loaded) {
    if (!docsPageAvailable()) throw new MissingPackage('swagger-ui-dist', 'The docs page (GET /docs)');
    const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    loaded = new Map([
      asset('swagger-ui-bundle.js', 'text/javascript; charset=utf-8', readFileSync(join(swaggerDir, 'swagger-ui-bundle.js'))),
      asset('swagger-ui.css', 'text/css; charset=utf-8', readFileSync(join(swaggerDir, 'swagger-ui.css'))),
      asset('favicon-32x32.png', 'image/png', readFileSync(join(swaggerDir, 'favicon-32x32.png'))),
      asset('docs.js', 'text/javascript; charset=utf-8', Buffer.from(INITIALIZER)),
    ].map((a) => [a.name, a]));
  }
  return loaded;
}
