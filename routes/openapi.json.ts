import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../lib/config/load.js';
import { Output } from '../lib/envelope/output.js';
import { buildOpenApi, openApiOptions } from '../lib/openapi/document.js';
import { loadRoutes } from '../lib/routing/load-routes.js';
import { route } from '../lib/routing/route.js';

/** This file's folder is the routes folder the server loaded it from. */
const routesDir = fileURLToPath(new URL('./', import.meta.url));

let built: Promise<{ document: object; etag: string }> | undefined;

/**
 * Built once per process. A route handler does not see the server's configuration object, so the variant, prefix
 * and MaxRows are read as `restlayer serve` (and `restlayer openapi`) read them: configuration files and `__`
 * environment variables. A server started in code with other settings (tests) still gets the document of those.
 */
async function build() {
  const routes = await loadRoutes(routesDir);
  const document = buildOpenApi(routes, openApiOptions(loadConfig().config));
  const etag = `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 27)}"`;
  return { document, etag };
}

export const GET = route({
  summary: 'The OpenAPI 3.1 document of this API, as the result of the envelope (`restlayer openapi` prints it bare).',
  anonymous: true,
  async handle({ header }) {
    built ??= build().catch((err: unknown) => {
      built = undefined;
      throw err;
    });
    const { document, etag } = await built;
    header('ETag', etag);
    return new Output(document);
  },
});
