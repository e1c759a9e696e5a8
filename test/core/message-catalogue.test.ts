import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { CATALOGUE, type MessageCode, entryOf, statusOfCode } from 'restlayer';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const codes = Object.keys(CATALOGUE) as MessageCode[];
const libDir = fileURLToPath(new URL('../../lib/', import.meta.url));

function* jsFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsFiles(path);
    else if (entry.name.endsWith('.js')) yield path;
  }
}

/** A message code written as a quoted string (Pascal_Pascal; a driver's SQLITE_BUSY is not one). */
const codeLiteral = /(['"])[A-Z][a-z][A-Za-z]*_[A-Z][a-z][A-Za-z]*\1/g;

describeStores('the message catalogue (issue 22)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('no file of the built layer but the catalogue writes a message code as a string', () => {
    const found: string[] = [];
    for (const file of jsFiles(libDir)) {
      const name = relative(libDir, file);
      // The catalogue itself; the scaffold's templates write an application's own service and tests as text; the
      // browser-safe client imports nothing outside its folder (test/client/core.test.ts) and keeps its own codes; a
      // test of a private module beside it names the codes it expects, and so do restlayer/testing's shared suite
      // (it checks answers; it emits none) and the starter (it writes a new project's test as text).
      if (name === join('envelope', 'message-catalogue.js') || name.startsWith(join('scaffold', 'templates')) || name.startsWith('client') || name.startsWith('testing') || name.startsWith('starter') || name.endsWith('.test.js')) continue;
      for (const match of readFileSync(file, 'utf8').matchAll(codeLiteral)) found.push(`${name}: ${match[0]}`);
    }
    expect(found).to.deep.equal([]);
  });

  it('every code the server answers is in the served OpenAPI document with its status, type and description', async () => {
    const reply = await server.call('/openapi.json');
    expect(reply.status).to.equal(200);
    const listed = reply.body.result.components['x-messages'] as Record<string, { status: number; type: string; description: string }>;
    // The layer's codes, and the application's own (issue 41: defineMessages, and those made from a resource's name).
    expect(Object.keys(listed)).to.include.members(codes);
    // (Other resources declared in this process, a test's probes, may add theirs: the sample's are there.)
    expect(Object.keys(listed).filter((code) => !codes.includes(code as MessageCode)))
      .to.include.members(['Customer_InvalidTerritoryId', 'SalesOrder_DateBeforeOrder', 'SalesOrder_InvalidProduct', 'SalesOrder_InvalidStatus', 'SalesOrder_UnknownCustomer']);
    for (const code of codes) {
      expect(listed[code], code).to.deep.include({ status: statusOfCode(code), type: entryOf(code).type, description: entryOf(code).description });
    }
    // The responses name codes from the catalogue too: a 413 response lists Request_TooLarge with its meaning.
    expect(reply.body.result.components.responses.TooLarge.description).to.include(`Request_TooLarge (${entryOf('Request_TooLarge').description})`);
  });

  it('answers over HTTP carry the catalogued status, type and text', async () => {
    const notFound = await server.call('/no-such-thing');
    expect(notFound.status).to.equal(statusOfCode('Route_NotFound'));
    expect(notFound.body.messages).to.deep.equal([{
      code: 'Route_NotFound', type: CATALOGUE.Route_NotFound.type, severity: 'Error',
      message: CATALOGUE.Route_NotFound.text({ method: 'GET', path: '/no-such-thing' }),
    }]);
    const unauthenticated = await server.call('/sales-order/43659', { token: null });
    expect(unauthenticated.status).to.equal(statusOfCode('Security_Unauthenticated'));
    expect(unauthenticated.body.messages.map((m) => [m.code, m.message])).to.deep.equal([['Security_Unauthenticated', CATALOGUE.Security_Unauthenticated.text]]);
  });

  it('one code, one text: a PATCH and a PUT of the wrong media type answer the same template', async () => {
    const headers = { 'Content-Type': 'text/plain' };
    const put = await server.call('/sales-order/43659', { method: 'PUT', body: 'x', headers });
    const patch = await server.call('/sales-order/43659', { method: 'PATCH', body: 'x', headers });
    for (const reply of [put, patch]) {
      expect(reply.status).to.equal(415);
      expect(reply.body.messages[0].code).to.equal('Request_UnsupportedMediaType');
      expect(reply.body.messages[0].message).to.match(/^The request body must be sent as .+, not text\/plain\.$/);
    }
    expect(patch.body.messages[0].message).to.include('application/merge-patch+json');
  });
});
