import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { expect } from 'chai';
import openapiTS, { type OpenAPI3, astToString } from 'openapi-typescript';
import ts from 'typescript';
import { type TestServer, startTestServer } from '../support/server.js';

/** A client's code against the generated types: compiles only if the list's items are typed from the models. */
const CLIENT = `import type { paths } from './api.js';

type ListAnswer = paths['/sales-order']['get']['responses']['200']['content']['application/json'];
type Item = NonNullable<ListAnswer['result']>[number];
type Read = NonNullable<paths['/sales-order/{salesOrderId}']['get']['responses']['200']['content']['application/json']['result']>;

export function describe(answer: ListAnswer, one: Read): string {
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
  return [number, total, shipped, wrong, revision, count].join(' ');
}
`;

/** The served document, checked by tools a client of the API would use: a linter and a type generator. */
describe('the served OpenAPI document in third-party tools', function () {
  this.timeout(60_000);
  let server: TestServer;
  let document: OpenAPI3;
  const dirs: string[] = [];

  before(async () => {
    server = await startTestServer({ config: { RestAPI: { Path: '/api' } }, sampleData: false, logLevel: 'error' });
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
    const dir = mkdtempSync(join(tmpdir(), 'restlayer-openapi-ts-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'api.ts'), generated);
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    const program = ts.createProgram([join(dir, 'client.ts')], {
      strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).to.deep.equal([]);
    expect(generated).to.match(/"ISalesOrderService\.readList\.Result": \{[\s\S]*?salesOrderNumber: string;/);
  });
});
