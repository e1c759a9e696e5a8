import { createHash } from 'node:crypto';
import type { ServerDescription } from '../http/context.js';
import { Output } from '../envelope/output.js';
import { buildOpenApi, openApiOptions } from '../openapi/document.js';
import { route } from '../routing/route.js';

interface BuiltDocument {
  document: object;
  etag: string;
}

/** Built once per server, from the very routes and configuration it runs with. */
const built = new WeakMap<ServerDescription, BuiltDocument>();

function documentOf(server: ServerDescription): BuiltDocument {
  let entry = built.get(server);
  if (!entry) {
    const document = buildOpenApi([...server.routes], openApiOptions(server.config));
    entry = { document, etag: `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 27)}"` };
    built.set(server, entry);
  }
  return entry;
}

export const GET = route({
  summary: 'The OpenAPI 3.1 document of this API, as the result of the envelope (`restlayer openapi` prints it bare).',
  // Anonymous only while RestAPI:PublicDocs is true (by default, outside production).
  documentation: true,
  async handle({ header, server }) {
    const { document, etag } = documentOf(server);
    header('ETag', etag);
    return new Output(document);
  },
});
