import { strongETag } from '../etag.js';
import type { ServerDescription } from '../routing/route.js';
import { buildOpenApi, openApiOptions } from './document.js';

export interface ServedDocument {
  document: object;
  etag: string;
  /** The application's name (info.title), for the reference page's title. */
  title: string;
}

/** Built once per server, from the very routes and configuration it runs with. */
const built = new WeakMap<ServerDescription, ServedDocument>();

/** The OpenAPI document a running server serves (GET /openapi.json in the envelope, GET /docs/openapi.json bare). */
export function servedDocument(server: ServerDescription): ServedDocument {
  let entry = built.get(server);
  if (!entry) {
    const options = openApiOptions(server.config);
    const document = buildOpenApi([...server.routes], options);
    entry = { document, title: options.info.title, etag: strongETag(JSON.stringify(document)) };
    built.set(server, entry);
  }
  return entry;
}
