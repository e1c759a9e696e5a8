import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient as generateSdk } from '@hey-api/openapi-ts';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Ajv6 from 'ajv6';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { OpenAPIBackend, SetMatchType, type Request as ValidatedRequest } from 'openapi-backend';
import openapiTS, { type OpenAPI3, astToString } from 'openapi-typescript';
import ts from 'typescript';
import { type TestServer, startTestServer } from '../support/server.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** A client's code against the generated types: compiles only if the list's items are typed from the models. */
const CLIENT = `import type { paths } from './api.js';

type ListAnswer = paths['/sales-order']['get']['responses']['200']['content']['application/json'];
type Item = NonNullable<ListAnswer['result']>[number];
type Read = NonNullable<paths['/sales-order/{salesOrderId}']['get']['responses']['200']['content']['application/json']['result']>;
type Created = paths['/sales-order']['post']['responses']['201']['content']['application/json'];

export function describe(answer: ListAnswer, one: Read, created: Created): string {
  const item: Item = answer.result![0];
  const number: string = item.salesOrderNumber;
  const total: number = item.totalDue;
  const shipped: string | undefined = item.shipDate;
  // @ts-expect-error: a number is not a string (fails to compile if the item were any)
  const wrong: number = item.salesOrderNumber;
  // @ts-expect-error: no such field on a list item
  void item.comment;
  const revision: number = one.revisionNumber;
  const count: number | undefined = answer.totalCount;
  const id: number | undefined = created.result?.salesOrderId;
  return [number, total, shipped, wrong, revision, count, id].join(' ');
}
`;

/** Code a team writes against the SDK @hey-api/openapi-ts generates: it is compiled strictly and run against the server. */
const SDK_USER = `import { createClient } from './client/index.js';
import { iSalesOrderServiceCreate, iSalesOrderServicePatch, iSalesOrderServiceRead, iSalesOrderServiceReadList } from './sdk.gen.js';

export async function roundTrip(baseUrl: string, token: string) {
  const client = createClient({ baseUrl, headers: { Authorization: \`Bearer \${token}\` } });
  const created = await iSalesOrderServiceCreate({ client, body: { customerId: 11000, status: 1, onlineOrderFlag: true, dueDate: '2030-01-31' } });
  const salesOrderId: number = created.data!.result!.salesOrderId;
  const patched = await iSalesOrderServicePatch({ client, path: { salesOrderId }, body: { dueDate: '2030-03-01' } });
  const read = await iSalesOrderServiceRead({ client, path: { salesOrderId } });
  const listed = await iSalesOrderServiceReadList({ client, query: { orderDate: ['2024-01-01', '2031-01-01T00:00'], take: 2, getTotalCount: true } });
  const dueDate: string | undefined = read.data?.result?.dueDate;
  return {
    statuses: [created.response.status, patched.response.status, read.response.status, listed.response.status],
    location: created.response.headers.get('Location'),
    salesOrderId, dueDate, listed: listed.data?.result?.length, total: listed.data?.totalCount,
  };
}
`;

/** Type-checks `roots` strictly (no skipLibCheck) and, with `outDir`, emits them; answers the diagnostics. */
function compile(roots: string[], outDir?: string): string[] {
  const program = ts.createProgram(roots, {
    strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'], types: [], ...(outDir ? { outDir } : { noEmit: true }),
  });
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/** The served document, checked by tools a client of the API would use: a linter, a validator and two generators. */
describeOneStore('the served OpenAPI document in third-party tools', WHY_ONE_STORE.openapi, function () {
  this.timeout(120_000);
  let server: TestServer;
  let document: OpenAPI3;
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  before(async () => {
    server = await startTestServer({ config: { RestAPI: { Path: '/api' } }, logLevel: 'error' });
    const reply = await fetch(`${server.url}/docs/openapi.json`);
    expect(reply.status).to.equal(200);
    document = (await reply.json()) as OpenAPI3;
  });
  after(async () => {
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("passes Redocly's recommended lint rules with no problem at all", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: `${server.url}/docs/openapi.json`, config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).to.deep.equal([]);
  });

  it('openapi-typescript generates types a client compiles against: the /sales-order list is typed, not unknown', async () => {
    const generated = astToString(await openapiTS(document));
    const dir = tempDir('restlayer-openapi-ts-');
    writeFileSync(join(dir, 'api.ts'), generated);
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    expect(compile([join(dir, 'client.ts')])).to.deep.equal([]);
    expect(generated).to.match(/"ISalesOrderService\.readList\.Result": \{[\s\S]*?salesOrderNumber: string;/);
    expect(generated).to.not.match(/2XX/);
  });

  it('@hey-api/openapi-ts generates an SDK that compiles strictly and whose calls the server answers', async () => {
    const dir = tempDir('restlayer-hey-api-');
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    await generateSdk({
      input: document as unknown as Record<string, unknown>,
      output: { path: join(dir, 'src'), importFileExtension: '.js' },
      plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
      logs: { level: 'silent' },
    });
    writeFileSync(join(dir, 'src', 'use.ts'), SDK_USER);
    expect(compile([join(dir, 'src', 'index.ts'), join(dir, 'src', 'use.ts')], join(dir, 'dist'))).to.deep.equal([]);
    const { roundTrip } = (await import(pathToFileURL(join(dir, 'dist', 'use.js')).href)) as { roundTrip: (url: string, token: string) => Promise<Record<string, unknown>> };
    // The generated URL template names salesOrderId, and the server's URL is still /sales-order/<id>.
    const outcome = await roundTrip(server.url, server.token());
    expect(outcome.statuses).to.deep.equal([201, 200, 200, 200]);
    expect(outcome.location).to.equal(`/api/sales-order/${outcome.salesOrderId}`);
    expect(outcome.dueDate).to.equal('2030-03-01T00:00:00.000Z');
    expect(outcome.listed).to.equal(2);
    expect(outcome.total).to.be.a('number').above(2);
  });

  describe('openapi-backend, a request and response validator built from the served document', () => {
    let api: OpenAPIBackend;
    before(async () => {
      // quick: its definition check knows OpenAPI 3.0 only; @seriousme/openapi-schema-validator checks the 3.1 document (openapi.test.ts).
      // With ajv-formats, formats are checked as a strict proxy validator checks them: `date-time` demands an offset.
      api = new OpenAPIBackend({
        definition: JSON.parse(JSON.stringify(document)), apiRoot: '/api', quick: true, strict: true,
        customizeAjv: (ajv) => addFormats.default(ajv),
      });
      await api.init();
    });

    /** Sends a request, after asking the validator about it; answers both verdicts and the validated answer. */
    async function exchange(request: ValidatedRequest & { body?: unknown }) {
      const verdict = api.validateRequest(request);
      const query = typeof request.query === 'string' && request.query ? `?${request.query}` : '';
      // The test server's own bearer token unless the request names another.
      const { authorization, ...headers } = request.headers as Record<string, string>;
      const reply = await server.call(`${request.path.replace(/^\/api/, '')}${query}`, {
        method: request.method.toUpperCase(), headers, token: authorization?.replace(/^Bearer /, ''), ...(request.body !== undefined ? { body: request.body } : {}),
      });
      const operation = api.matchOperation(request)!;
      const answer = reply.status === 304 ? { valid: true, errors: null } : api.validateResponse(reply.body, operation, reply.status);
      const answerHeaders = api.validateResponseHeaders(Object.fromEntries(reply.headers.entries()), operation, { statusCode: reply.status, setMatchType: SetMatchType.Superset });
      return { requestValid: verdict.valid, requestErrors: verdict.errors, status: reply.status, answer, answerHeaders };
    }

    it('accepts the requests the server accepts: a date alone, a time without offset, in criteria and in a merge patch', async () => {
      const json = { 'Content-Type': 'application/json' };
      const patch = { 'Content-Type': 'application/merge-patch+json' };
      const requests: (ValidatedRequest & { body?: unknown })[] = [
        { method: 'get', path: '/api/sales-order', query: 'orderDate=2024-01-01&take=3', headers: {} },
        { method: 'get', path: '/api/sales-order', query: 'orderDate=2022-01-01&orderDate=2024-06-30T12:00&getTotalCount=true&take=2', headers: {} },
        { method: 'get', path: '/api/sales-order', query: 'orderDate.operator=GE&orderDate=2024-01-01T00:00:00%2B02:00&take=1', headers: {} },
        { method: 'patch', path: '/api/sales-order/43659', body: { dueDate: '2030-03-01' }, headers: patch },
        { method: 'patch', path: '/api/sales-order/43659', body: { shipDate: '2030-02-01T08:30' }, headers: patch },
        { method: 'put', path: '/api/sales-order/43660', body: { status: 2, onlineOrderFlag: false, dueDate: '2030-04-01' }, headers: json },
        { method: 'post', path: '/api/sales-order', body: { customerId: 11000, status: 1, onlineOrderFlag: true, dueDate: '2030-05-01' }, headers: json },
      ];
      for (const request of requests) {
        const outcome = await exchange(request);
        const label = `${request.method} ${request.path} ${request.query ?? JSON.stringify(request.body)}`;
        expect(outcome.requestValid, `${label}: ${JSON.stringify(outcome.requestErrors)}`).to.equal(true);
        expect(outcome.status, label).to.equal(request.method === 'post' ? 201 : 200);
        expect(outcome.answer.errors, label).to.equal(null);
        expect(outcome.answerHeaders.errors, label).to.equal(null);
      }
    });

    it('refuses, as the server does, dates it does not read; and answers of every kind validate, required headers included', async () => {
      const refused: ValidatedRequest[] = [
        { method: 'get', path: '/api/sales-order', query: 'orderDate=yesterday', headers: {} },
        { method: 'patch', path: '/api/sales-order/43659', body: { dueDate: '01/03/2030' }, headers: { 'Content-Type': 'application/merge-patch+json' } },
      ];
      for (const request of refused) {
        const outcome = await exchange(request);
        expect([outcome.requestValid, outcome.status], JSON.stringify(request)).to.deep.equal([false, 400]);
        expect(outcome.answer.errors).to.equal(null);
      }
      const etag = (await server.call('/lookup-table/sales-order-status')).headers.get('ETag')!;
      const cases: [ValidatedRequest, number][] = [
        [{ method: 'get', path: '/api/lookup-table/sales-order-status', headers: {} }, 200],
        [{ method: 'get', path: '/api/lookup-table/sales-order-status', headers: { 'if-none-match': etag } }, 304],
        [{ method: 'get', path: '/api/sales-order/1', headers: {} }, 404],
        [{ method: 'get', path: '/api/sales-order/43659', headers: { authorization: 'Bearer not-a-token' } }, 401],
        [{ method: 'get', path: '/api/health/ready', headers: {} }, 200],
      ];
      for (const [request, status] of cases) {
        const outcome = await exchange(request);
        expect(outcome.status, request.path).to.equal(status);
        expect(outcome.answer.errors, request.path).to.equal(null);
        expect(outcome.answerHeaders.errors, `${request.path} ${status}`).to.equal(null);
      }
      // The checks have teeth: an answer without the headers the document requires is refused, and so is an output date
      // without its offset (outputs stay date-time), so inputs declared date-time would have refused 2024-01-01.
      const read = api.getOperation('ISalesOrderService.update')!;
      expect(api.validateResponse({ result: { revisionNumber: 2, modifiedDate: '2030-03-01T00:00:00.000Z' }, messages: [] }, read, 200).errors).to.equal(null);
      expect(api.validateResponse({ result: { revisionNumber: 2, modifiedDate: '2030-03-01' }, messages: [] }, read, 200).errors).to.have.length.above(0);
      const missing = api.validateResponseHeaders({}, api.getOperation('ILookupService.read')!, { statusCode: 200, setMatchType: SetMatchType.Superset });
      expect(missing.errors?.map((e) => e.params)).to.deep.include({ missingProperty: 'x-request-id' });
    });
  });

  /**
   * Postman's schema check (`pm.response.to.have.jsonSchema`, as Portman writes it from the document) runs ajv 6 with
   * its defaults, where a format it does not know is an error when the schema is compiled. Amounts declared
   * `format: decimal` made every answer that carried one fail there (issue 41, part 4).
   */
  it("Postman's schema check (ajv 6, its defaults) compiles every answer's schema and accepts live answers with amounts", async () => {
    const ajv = new Ajv6();
    // The validator is configured as Postman's: a format it does not know stops the check.
    expect(() => new Ajv6().compile({ type: 'number', format: 'decimal' })).to.throw(/unknown format "decimal" is used in schema/);
    ajv.addSchema(JSON.parse(JSON.stringify(document)) as object, 'openapi');
    const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
    /** The document's schema of the answer of `method path` with `status`, compiled by ajv 6 (throws as Postman would). */
    const answerSchema = (path: string, method: string, status: number) =>
      ajv.compile({ $ref: `openapi#/${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}` });
    // Every answer schema of the document compiles: no format or keyword of it stops the check.
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) => Object.entries(item as Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .flatMap(([method, operation]) => Object.entries(operation.responses ?? {})
        .filter(([, response]) => response.content?.['application/json'])
        .map(([status]) => ({ path, method, status: Number(status) }))));
    expect(operations.length).to.be.above(20);
    const uncompiled = operations.flatMap(({ path, method, status }) => {
      try {
        answerSchema(path, method, status);
        return [];
      } catch (err) {
        return [`${method} ${path} ${status}: ${(err as Error).message}`];
      }
    });
    expect(uncompiled).to.deep.equal([]);

    const created = await server.call('/sales-order', { method: 'POST', body: { customerId: 11000, status: 1, onlineOrderFlag: true, dueDate: '2030-05-01' } });
    const id = (created.body as { result: { salesOrderId: number } }).result.salesOrderId;
    const line = { productId: 707, orderQty: 3, unitPrice: 34.99, unitPriceDiscount: 0.1 };
    const exchanges: [string, string, string, { method?: string; body?: unknown }, number][] = [
      ['/sales-order', 'get', '/sales-order?take=5&getTotalCount=true', {}, 200],
      ['/sales-order/{salesOrderId}', 'get', '/sales-order/43659', {}, 200],
      ['/sales-order/{salesOrderId}/detail', 'post', `/sales-order/${id}/detail`, { method: 'POST', body: line }, 201],
      ['/sales-order/{salesOrderId}', 'get', `/sales-order/${id}`, {}, 200],
      ['/sales-order/{salesOrderId}', 'patch', `/sales-order/${id}`, { method: 'PATCH', body: { comment: 'checked' } }, 200],
      ['/sales-order/{salesOrderId}/history', 'get', `/sales-order/${id}/history`, {}, 200],
      ['/customer/{customerId}', 'get', '/customer/11000', {}, 200],
      ['/sales-order', 'get', '/sales-order?totalDue=cheap', {}, 400],
      ['/sales-order/{salesOrderId}', 'get', '/sales-order/1', {}, 404],
    ];
    let amounts = 0;
    for (const [path, method, url, init, status] of exchanges) {
      const reply = await server.call(url, init);
      expect(reply.status, `${method} ${url}: ${reply.text}`).to.equal(status);
      const validate = answerSchema(path, method, status);
      expect(validate(reply.body), `${method} ${url}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      amounts += (reply.text.match(/"(totalDue|subTotal|unitPrice|lineTotal)":\d/g) ?? []).length;
    }
    expect(amounts, 'the answers carried amounts').to.be.above(5);
    // With teeth: an amount sent as text is refused.
    const read = answerSchema('/sales-order/{salesOrderId}', 'get', 200);
    const order = (await server.call('/sales-order/43659')).body as { result: Record<string, unknown> };
    expect(read({ ...order, result: { ...order.result, totalDue: '23153.2339' } })).to.equal(false);
  });
});
