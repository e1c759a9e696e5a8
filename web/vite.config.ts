import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { type Plugin, defineConfig } from 'vite';

/** Text bundles worth compressing; index.html is left to the server, which rewrites it (and compresses it then). */
const COMPRESSIBLE = /\.(js|css|svg|json)$/;

/**
 * Writes `name.br` and `name.gz` beside every compressible bundle, at the highest levels (once, at build time), for
 * @koa/send to serve to browsers that accept them.
 */
function precompress(): Plugin {
  return {
    name: 'restlayer-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const file of Object.values(bundle)) {
        if (!COMPRESSIBLE.test(file.fileName)) continue;
        const source = Buffer.from(file.type === 'asset' ? file.source : file.code);
        const path = join(options.dir!, file.fileName);
        writeFileSync(`${path}.br`, brotliCompressSync(source, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }));
        writeFileSync(`${path}.gz`, gzipSync(source, { level: constants.Z_BEST_COMPRESSION }));
      }
    },
  };
}

/**
 * The browser app: web/ → dist/web (served by lib/http/web-app.ts). Bundles go to assets/ with a content hash in
 * their names (cached for a year); index.html keeps its name (revalidated on every load). No inline script or
 * style is emitted, so the page runs under a CSP of script-src 'self' and style-src 'self'.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: 'public',
  plugins: [precompress()],
  resolve: {
    // The app imports the browser-safe client by its package name, as a dependent project does: here, its sources.
    // Only restlayer/client: a value imported from 'restlayer' (the server) fails the build instead of bundling it.
    alias: [{ find: /^restlayer\/client$/, replacement: fileURLToPath(new URL('../lib/client/index.ts', import.meta.url)) }],
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/web/', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: true,
    // Modern browsers preload modules natively; the polyfill would only add code.
    modulePreload: { polyfill: false },
    // Never inline assets as data: URLs (the CSP allows img-src 'self' only).
    assetsInlineLimit: 0,
  },
});
