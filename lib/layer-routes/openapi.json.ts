import { Output } from '../envelope/output.js';
import { servedDocument } from '../openapi/served-document.js';
import { route } from '../routing/route.js';
import { OpenApiDocument } from '../openapi/struct-schema.js';

export const GET = route({
  summary: 'The OpenAPI 3.1 document of this API, as the result of the envelope (`restlayer openapi` prints it bare).',
  // Anonymous only while RestAPI:PublicDocs is true (by default, outside production).
  documentation: true,
  result: OpenApiDocument,
  answers: [304],
  async handle({ header, server }) {
    const { document, etag } = servedDocument(server);
    header('ETag', etag);
    return new Output(document);
  },
});
