import { expect } from 'chai';
import { CODES } from 'restlayer';
import type { Browser, Page } from 'playwright-core';
import { type PageProblems, launchChromium, requireChromium, screenshot, watchPage } from '../support/browser.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { addUser } from '../support/users.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * The /docs page in Chromium against a real server under /api: every request stays on the server's origin, the
 * page's CSP is never violated, and "try it" with a bearer token reaches the same server.
 */
describeOneStore('/docs in Chromium', WHY_ONE_STORE.web, function () {
  this.timeout(90_000);
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  const requested: string[] = [];

  before(async function () {
    requireChromium(this, 'the browser tests of /docs');
    server = await startTestServer({ config: { RestAPI: { Path: '/api' }, Authentication: { PasswordHashCost: 10 } }, logLevel: 'error' });
    browser = await launchChromium();
    page = await browser.newPage();
    problems = await watchPage(page);
    page.on('request', (request) => requested.push(request.url()));
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('renders every operation of the document from files of the server only, within its CSP', async () => {
    const document = (await server.call('/openapi.json', { token: null })).body.result as { paths: Record<string, object> };
    const operations = Object.values(document.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    await page.goto(`${server.url}/docs`);
    await page.locator('.opblock').nth(operations - 1).waitFor();
    expect(await page.locator('.opblock').count()).to.equal(operations);
    await page.locator('.opblock-summary-path[data-path="/sales-order"]').first().waitFor();
    await screenshot(page, 'docs');
    const origin = new URL(server.url).origin;
    const elsewhere = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
    expect(elsewhere).to.deep.equal([]);
    expect(requested).to.include(`${server.url}/docs/openapi.json`);
    expect(problems.list).to.deep.equal([]);
  });

  /** Authorize: the bearer token, as a person pastes it into the page's dialog. */
  async function authorize(token: string) {
    await page.locator('button.authorize').first().click();
    await page.locator('.auth-container input[type=text]').first().fill(token);
    await page.locator('.auth-container button.authorize').first().click();
    await page.locator('button.btn-done').first().click();
  }

  it('"try it" with a bearer token from Authorize gets 200 from the same server', async () => {
    const token = server.token();
    await authorize(token);

    const operation = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/sales-order/{salesOrderId}"]') });
    await operation.locator('.opblock-summary-control').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('input[placeholder="salesOrderId"]').fill('43659');
    const answered = page.waitForResponse((response) => response.url() === `${server.url}/sales-order/43659`);
    await operation.locator('button.execute').click();
    const response = await answered;
    expect(response.status()).to.equal(200);
    expect(await response.request().headerValue('Authorization')).to.equal(`Bearer ${token}`);
    expect(((await response.json()) as { result: { salesOrderNumber: string } }).result.salesOrderNumber).to.equal('SO43659');
    await operation.locator('.live-responses-table tr.response .response-col_status').first().waitFor();
    expect((await operation.locator('.live-responses-table tr.response .response-col_status').first().innerText()).trim()).to.equal('200');
    await screenshot(page, 'docs-try-it');
    expect(problems.list).to.deep.equal([]);
  });

  it('"try it" sends, for every operation, a default request that the document makes right: no 400 of the layer\'s checks', async function () {
    this.timeout(300_000);
    // What a person types: the path parameters the page requires, with ids that exist. Everything else is what the
    // page fills in itself from the document: parameter defaults (sort[0].sortDirection had one, which the server
    // refused without a sort field: issue 42) and, for a body, a sample made from its schema.
    const order = (await server.call('/sales-order/43659')).body.result as { customerId: number; lines: { salesOrderDetailId: number }[] };
    await addUser(server, 'tryit', 'tryit-password-1');
    const typed: Record<string, string> = {
      salesOrderId: '43659', customerId: String(order.customerId), salesOrderDetailId: String(order.lines[0].salesOrderDetailId),
      type: 'sales-order-status', userName: 'tryit', address: '192.0.2.1',
    };
    const document = (await server.call('/openapi.json', { token: null })).body.result as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown }>>;
    };
    // Writes before deletes, so that every operation meets the records it names.
    const rank = (verb: string) => ['get', 'post', 'put', 'patch', 'delete'].indexOf(verb);
    const operations = Object.entries(document.paths)
      .flatMap(([path, ops]) => Object.entries(ops).map(([verb, op]) => ({ path, verb, op })))
      .sort((a, b) => rank(a.verb) - rank(b.verb));
    await page.goto(`${server.url}/docs`);
    await page.locator('.opblock').nth(operations.length - 1).waitFor();
    await authorize(server.token());
    const layerCodes = new Set<string>(Object.values(CODES));
    const refused: string[] = [];
    for (const { path, verb, op } of operations) {
      const block = page.locator(`.opblock-${verb}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) }).first();
      await block.locator('.opblock-summary-control').click();
      await block.locator('button.try-out__btn').click();
      for (const param of (op.parameters ?? []).filter((p) => p.in === 'path')) {
        const value = typed[param.name];
        if (value === undefined) throw new Error(`${verb.toUpperCase()} ${path}: no value for its path parameter ${param.name} in this test's typed ids`);
        await block.locator(`input[placeholder="${param.name}"]`).fill(value);
      }
      const expected = `${new URL(server.url).pathname}${path.replace(/\{(\w+)\}/g, (_, name: string) => typed[name])}`;
      const answered = page.waitForResponse((r) => r.request().method() === verb.toUpperCase() && new URL(r.url()).pathname === expected);
      await block.locator('button.execute').click();
      const response = await answered;
      await block.locator('.opblock-summary-control').click();
      if (response.status() !== 400) continue;
      const codes = ((await response.json()) as { messages: { code: string }[] }).messages.map((m) => m.code);
      // A sample body holds values the schema allows but the service's own rules may not (product 1 inactive, a
      // territory id that is no entry): those answers are the application's codes, about what the person edits
      // before sending. A code of the layer's checks (a parameter, a type, a property, the JSON) means the document
      // told the page something the server refuses.
      if (!op.requestBody || codes.some((code) => layerCodes.has(code))) refused.push(`${verb.toUpperCase()} ${path}: ${codes.join(', ')}`);
    }
    expect(refused).to.deep.equal([]);
    expect(problems.list).to.deep.equal([]);
  });

  it('with RestAPI:PublicDocs false, a browser without a session gets the 401 envelope; after a cookie login it gets the page', async () => {
    const closed = await startTestServer({ config: { RestAPI: { Path: '/api', PublicDocs: false }, Authentication: { PasswordHashCost: 10 } }, sampleData: false, logLevel: 'error' });
    const context = await browser.newContext();
    try {
      await addUser(closed, 'dora', 'dora-password-1');
      const tab = await context.newPage();
      const seen = await watchPage(tab);
      const refused = await tab.goto(`${closed.url}/docs`);
      expect(refused!.status()).to.equal(401);
      expect(JSON.parse(await tab.locator('body').innerText()).messages[0].code).to.equal('Security_Unauthenticated');
      const login = await context.request.post(`${closed.url}/auth/cookie`, { data: { userName: 'dora', password: 'dora-password-1' } });
      expect(login.status()).to.equal(200);
      const shown = await tab.goto(`${closed.url}/docs`);
      expect(shown!.status()).to.equal(200);
      await tab.locator('.opblock-summary-path[data-path="/sales-order"]').first().waitFor();
      expect(seen.list.filter((p) => !/status of 401/.test(p))).to.deep.equal([]);
    } finally {
      await context.close();
      await closed.stop();
    }
  });
});
