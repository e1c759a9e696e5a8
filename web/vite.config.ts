import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The browser app: web/ → dist/web (served by lib/http/web-app.ts). Bundles go to assets/ with a content hash in
 * their names (cached for a year); index.html keeps its name (revalidated on every load). No inline script or
 * style is emitted, so the page runs under a CSP of script-src 'self' and style-src 'self'.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: 'public',
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
