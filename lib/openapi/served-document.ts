import { strongETag } from '../etag.js';
import type { ServerDescription } from '../routing/route.js';
import { buildOpenApi, openApiOptions } from './document.js';

export interface ServedDocument {
  document: object;
  etag: string;
}

/** Built once per server, from the very routes and configuration it runs with. */
const built = new WeakMap<ServerDescription, ServedDocument>();

/** The OpenAPI document a running server serves (GET /openapi.json in the envelope, GET /docs/openapi.json bare). */
export function servedDocument(server: ServerDescription): ServedDocument {
  let entry = built.get(server);
  if (!entry) {
    const document = buildOpenApi([...server.routes], openApiOptions(server.config));
    entry = { document, etag: strongETag(JSON.stringify(document)) };
    built.set(server, entry);
  }
  return entry;
}
