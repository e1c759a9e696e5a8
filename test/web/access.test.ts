import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { withErrorScope } from 'restlayer';
import { type PageProblems, launchChromium, requireChromium, screenshot, watchPage } from '../support/browser.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { addUser } from '../support/users.js';
import { closeContext, fillLogIn } from '../support/web-app.js';
import { describeStores } from '../support/stores.js';

const PASSWORD = 'access-password-1';
/** The contract's roles, one user each; the sales person's own orders are those of sales person 279. */
const VIEWER = 'vera';
const CLERK = 'cleo';
const SALES = 'sam';
const SALES_PERSON = 279;
const SAMPLE_ORDER = 43659;

interface Line { salesOrderDetailId: number; productId: number; productName: string; orderQty: number }
interface Order { salesOrderId: number; salesOrderNumber: string; customerId: number; customerName: string; salesPersonId?: number; revisionNumber: number; comment?: string; lines: Line[] }

/**
 * The browser app offers each user only what their permissions allow (the session's `permissions`), and shows an
 * order's history: driven in Chromium against a real server, with a user of each role of part 10.
 */
describeStores('web app: what each role is offered, and the order history, in Chromium', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let appUrl: string;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let activeProducts: number[];

  before(async function () {
    requireChromium(this, 'the browser tests of permissions and history');
    server = await startTestServer({ config: { Web: { Enabled: true }, RestAPI: { Path: '/api' }, Authentication: { PasswordHashCost: 10 } } });
    await addUser(server, VIEWER, PASSWORD, ['Viewer'], 'Vera Viewer');
    await addUser(server, CLERK, PASSWORD, ['Clerk'], 'Cleo Clerk');
    await addUser(server, SALES, PASSWORD, ['SalesPerson'], 'Sam Sales');
    const set = await withErrorScope(() => server.services.users.setAttribute(SALES, 'salesPersonId', String(SALES_PERSON)));
    expect(set.messages).to.deep.equal([]);
    appUrl = `${new URL(server.url).origin}/`;
    const products = await server.call('/lookup-table/product');
    expect(products.status, products.text).to.equal(200);
    activeProducts = (products.body.result.data as { id: number; isActive: boolean }[]).filter((p) => p.isActive).map((p) => p.id);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function newPage(width = 1280): Promise<void> {
    context = await browser.newContext({ viewport: { width, height: 900 } });
    page = await context.newPage();
    problems = await watchPage(page);
  }
  afterEach(async function () {
    if (!context) return;
    await closeContext(this, page, context, 'access-failed-');
    context = undefined as unknown as BrowserContext;
    expect(problems.list, 'errors or CSP violations in the page').to.deep.equal([]);
  });

  // ---- helpers -------------------------------------------------------------------------------------------------

  /** A bearer token of one of the users, by logging in as they would. */
  async function tokenOf(user: string): Promise<string> {
    const reply = await server.call('/auth/jwt', { method: 'POST', token: null, body: { userName: user, password: PASSWORD } });
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.result.accessToken as string;
  }

  async function apiOrder(id: number): Promise<Order> {
    const reply = await server.call(`/sales-order/${id}`);
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.result as Order;
  }

  /** A new order with lines of the first active products (quantities given). */
  async function newOrder(quantities: number[]): Promise<Order> {
    const reply = await server.call('/sales-order', {
      method: 'POST',
      body: {
        customerId: 11000, status: 1, onlineOrderFlag: true, dueDate: '2030-01-15T00:00:00.000Z',
        lines: quantities.map((orderQty, i) => ({ productId: activeProducts[i], orderQty })),
      },
    });
    expect(reply.status, reply.text).to.equal(201);
    return apiOrder(reply.body.result.salesOrderId as number);
  }

  /** Opens the app on `hash`, logs in as `user` and waits for that screen to be loaded. */
  async function logInAt(hash: string, user: string, width = 1280): Promise<void> {
    await newPage(width);
    await page.goto(`${appUrl}${hash}`);
    await fillLogIn(page, user, PASSWORD);
    await page.waitForFunction((wanted) => location.hash === wanted, hash);
  }

  async function orderShown(id: number): Promise<void> {
    await page.waitForFunction((wanted) => location.hash === `#/orders/${wanted}` && !!document.querySelector('.order-screen[data-loaded] #order-form'), id);
  }

  async function customerShown(): Promise<void> {
    await page.waitForFunction(() => !!document.querySelector('.customer-screen[data-loaded]'));
  }

  async function listed(): Promise<void> {
    await page.waitForFunction(() => {
      const results = document.querySelector('#results');
      return results?.getAttribute('aria-busy') === 'false' && results.getAttribute('data-loaded') === location.hash;
    });
  }

  const count = (selector: string) => page.locator(selector).count();
  const visible = (selector: string) => page.locator(selector).isVisible();
  const readOnly = (selector: string) => page.$eval(selector, (c) => (c as HTMLInputElement).readOnly);
  const disabled = (selector: string) => page.$eval(selector, (c) => (c as HTMLInputElement).disabled);

  /** No sideways scrolling at this width, every visible control labelled; a PNG goes to test-results/screenshots. */
  async function fits(name: string): Promise<void> {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${name}: the page scrolls sideways`).to.be.at.most(0);
    const unlabelled = await page.$$eval('input, select, textarea', (controls) => controls
      .filter((c) => (c as HTMLInputElement).labels?.length === 0 && !c.getAttribute('aria-label') && (c as HTMLElement).offsetParent !== null)
      .map((c) => c.outerHTML));
    expect(unlabelled, `${name}: controls without a label`).to.deep.equal([]);
    await screenshot(page, name);
  }

  /** The history table's rows as shown: operation, who, and each change's text. */
  async function historyRows(): Promise<{ operation: string; what: string; user: string; changes: string[] }[]> {
    return page.$$eval('#history tbody tr', (trs) => trs.map((tr) => ({
      operation: (tr as HTMLElement).dataset.operation!,
      what: tr.querySelector('[data-label="What"]')!.textContent!.trim(),
      user: tr.querySelector('[data-label="Who"]')!.textContent!.trim(),
      changes: [...tr.querySelectorAll('li')].map((li) => li.textContent!.replace(/\s+/g, ' ').trim()),
    })));
  }

  async function showHistory(): Promise<void> {
    await page.getByRole('button', { name: 'Show the history' }).click();
    await page.waitForFunction(() => /^Showing|^No changes/.test(document.querySelector('#history-status')?.textContent ?? ''));
  }

  // ---- tests ---------------------------------------------------------------------------------------------------

  it('offers a Viewer no write: the order and customer forms are read only, no line controls, no new customer', async () => {
    const order = await apiOrder(SAMPLE_ORDER);
    await logInAt(`#/orders/${SAMPLE_ORDER}`, VIEWER);
    await orderShown(SAMPLE_ORDER);
    expect(await page.getByRole('button', { name: 'Save changes' }).count(), 'no Save').to.equal(0);
    expect(await count('#order-delete'), 'no Delete').to.equal(0);
    expect(await page.locator('#order-read-only').textContent()).to.equal('You can view this order but not change it.');
    expect(await page.getByRole('heading', { level: 2, name: 'The order' }).count()).to.equal(1);
    expect(await disabled('#order-status'), 'the status list').to.equal(true);
    expect(await disabled('#order-online'), 'the online flag').to.equal(true);
    expect(await readOnly('#order-comment'), 'the comment').to.equal(true);
    expect(await readOnly('#order-po'), 'the purchase order number').to.equal(true);
    // The read-only text fields can still be reached and read by keyboard.
    await page.locator('#order-po').focus();
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('order-po');
    // Lines are shown, not editable: no fields, no buttons, no add form.
    expect(await count('#lines tbody tr[data-line-id]')).to.equal(order.lines.length);
    expect(await count('#lines input, #lines button')).to.equal(0);
    expect(await count('#line-add')).to.equal(0);
    expect(await page.locator(`#lines tr[data-line-id="${order.lines[0].salesOrderDetailId}"] [data-field="orderQty"]`).textContent()).to.equal(String(order.lines[0].orderQty));
    // The history is for readers too.
    expect(await visible('#history-show')).to.equal(true);
    // A reload resumes the session (GET /auth/session): its permissions still decide what is offered.
    await page.reload();
    await orderShown(SAMPLE_ORDER);
    expect(await page.locator('#order-read-only').isVisible()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Save changes' }).count()).to.equal(0);
    expect(await count('#lines input, #lines button')).to.equal(0);
    await fits('access-viewer-order-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    await fits('access-viewer-order-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    // The customer of that order: read only, neither Save nor Delete.
    await page.getByRole('link', { name: order.customerName, exact: true }).first().click();
    await customerShown();
    expect(await visible('#customer-save')).to.equal(false);
    expect(await visible('#customer-delete')).to.equal(false);
    expect(await readOnly('#customer-name')).to.equal(true);
    expect(await disabled('#customer-territory')).to.equal(true);
    expect(await visible('#customer-read-only')).to.equal(true);

    // The customer list offers no New customer, and the create form's address says why instead of showing it.
    await page.evaluate(() => { location.hash = '#/customers'; });
    await listed();
    expect(await count('#new-customer')).to.equal(0);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).to.deep.equal(['Orders', 'Customers']);
    await page.evaluate(() => { location.hash = '#/customers/new'; });
    await page.locator('#not-allowed').waitFor();
    expect(await page.locator('#not-allowed').textContent()).to.equal('Your account may not create customers.');
    expect(await count('#customer-form')).to.equal(0);
  });

  it('offers a Clerk every write: the order form, lines, delete after a confirmation, and new customers', async () => {
    const order = await newOrder([2]);
    await logInAt(`#/orders/${order.salesOrderId}`, CLERK);
    await orderShown(order.salesOrderId);
    expect(await visible('#order-form button[type="submit"]')).to.equal(true);
    expect(await count('#order-read-only')).to.equal(0);
    expect(await disabled('#order-status')).to.equal(false);
    expect(await readOnly('#order-comment')).to.equal(false);
    expect(await count(`#line-${order.lines[0].salesOrderDetailId}-qty`)).to.equal(1);
    expect(await visible('#line-add')).to.equal(true);
    expect(await visible('#order-delete')).to.equal(true);

    // Delete: the confirmation's safe choice first; then the order is gone (404 for the API too).
    await page.locator('#order-delete').click();
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('delete-cancel');
    await page.getByRole('button', { name: 'Keep the order' }).click();
    expect(await page.evaluate(() => document.activeElement?.id), 'focus back on the button').to.equal('order-delete');
    expect((await server.call(`/sales-order/${order.salesOrderId}`)).status).to.equal(200);
    await page.locator('#order-delete').click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.locator('#order-deleted').waitFor();
    expect(await page.locator('#order-deleted').textContent()).to.equal(`Order ${order.salesOrderNumber} was deleted.`);
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('order-heading');
    expect((await server.call(`/sales-order/${order.salesOrderId}`)).status).to.equal(404);
    // Its history stays readable by whoever may delete orders, the deletion on top.
    await showHistory();
    expect((await historyRows()).map((r) => r.operation)).to.deep.equal(['delete', 'create']);

    await page.evaluate(() => { location.hash = '#/customers'; });
    await listed();
    expect(await visible('#new-customer')).to.equal(true);
    await page.locator('#results tbody tr[data-customer-id] a').first().click();
    await customerShown();
    expect(await visible('#customer-save')).to.equal(true);
    expect(await visible('#customer-delete')).to.equal(true);
    expect(await readOnly('#customer-name')).to.equal(false);
  });

  it('shows a SalesPerson only their own orders; they edit their lines and the order, but cannot delete it', async () => {
    // A sales person may not create orders (no sales-order.create): theirs are the sample's orders of their id.
    const all = await server.call(`/sales-order?salesPersonId=${SALES_PERSON}&take=1&getTotalCount=true`);
    expect(all.status, all.text).to.equal(200);
    const total = all.body.totalCount!;
    expect(total).to.be.greaterThan(0);
    const own = await apiOrder(all.body.result[0].salesOrderId as number);

    await logInAt('#/orders', SALES);
    await listed();
    const persons = await page.$$eval('#results tbody tr[data-order-id] [data-field="salesPersonId"]', (tds) => [...new Set(tds.map((td) => td.textContent))]);
    expect(persons, 'one sales person in the list').to.have.length(1);
    expect(await page.locator('#list-summary').textContent()).to.match(new RegExp(` of ${total.toLocaleString('en-US')}$`));

    await page.evaluate((id) => { location.hash = `#/orders/${id}`; }, own.salesOrderId);
    await orderShown(own.salesOrderId);
    expect(await count('#order-delete'), 'no Delete for a sales person').to.equal(0);
    expect(await visible('#order-form button[type="submit"]')).to.equal(true);
    const line = own.lines[0];
    const qty = line.orderQty === 5 ? 6 : 5;
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).fill(String(qty));
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).press('Enter');
    await page.waitForFunction(() => /^Line saved/.test(document.querySelector('#lines-status')?.textContent ?? ''));
    expect((await apiOrder(own.salesOrderId)).lines[0].orderQty).to.equal(qty);

    // Another sales person's order does not exist for them.
    const other = await apiOrder(SAMPLE_ORDER);
    expect(other.salesPersonId).to.not.equal(SALES_PERSON);
    await page.evaluate((id) => { location.hash = `#/orders/${id}`; }, SAMPLE_ORDER);
    await page.getByText('The order could not be shown.').waitFor();
    expect(await count('#order-form')).to.equal(0);

    // Customers: read only (customer.read), and no New customer.
    await page.evaluate(() => { location.hash = '#/customers'; });
    await listed();
    expect(await count('#new-customer')).to.equal(0);
    await page.evaluate((id) => { location.hash = `#/customers/${id}`; }, own.customerId);
    await customerShown();
    expect(await visible('#customer-save')).to.equal(false);
    expect(await readOnly('#customer-name')).to.equal(true);
  });

  it('shows the order\'s history after edits in the app: newest first, who, what, each field old → new', async () => {
    const order = await newOrder([2]);
    const line = order.lines[0];
    await logInAt(`#/orders/${order.salesOrderId}`, CLERK);
    await orderShown(order.salesOrderId);
    await page.getByLabel('Comment').fill('Rush, please');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction(() => /^Changes saved/.test(document.querySelector('#save-status')?.textContent ?? ''));
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).fill('5');
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).press('Enter');
    await page.waitForFunction(() => /^Line saved/.test(document.querySelector('#lines-status')?.textContent ?? ''));

    await showHistory();
    const rows = await historyRows();
    expect(rows.map((r) => r.operation)).to.deep.equal(['line-patch', 'update', 'create']);
    expect(rows.map((r) => r.what)).to.deep.equal(['Line changed', 'Saved', 'Created']);
    expect(rows[0].user).to.equal(CLERK);
    expect(rows[1].user).to.equal(CLERK);
    expect(rows[0].changes.some((c) => /^Quantity \(line \d+\): 2 → changed to 5$/.test(c)), rows[0].changes.join(' | ')).to.equal(true);
    expect(rows[1].changes, rows[1].changes.join(' | ')).to.include('Comment: (none) → changed to Rush, please');
    // Table semantics: a caption, column headers; the heading names the section.
    expect(await page.locator('#history caption').textContent()).to.equal('Changes to the order, newest first');
    expect(await page.$$eval('#history thead th', (ths) => ths.map((th) => `${th.textContent}:${th.getAttribute('scope')}`))).to.deep.equal(['When:col', 'Who:col', 'What:col', 'Changes:col']);
    expect(await page.getByRole('heading', { level: 2, name: 'History' }).count()).to.equal(1);
    expect(await page.locator('#history time').first().getAttribute('datetime')).to.match(/^\d{4}-\d{2}-\d{2}T/);

    // With the history showing, a new write appears on top of it.
    await page.getByLabel('Comment').fill('Rush, please, today');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction(() => document.querySelector('#history tbody tr')?.getAttribute('data-operation') === 'update'
      && document.querySelectorAll('#history tbody tr').length === 4);
    expect((await historyRows())[0].changes).to.include('Comment: Rush, please → changed to Rush, please, today');
    await page.setViewportSize({ width: 375, height: 800 });
    await fits('access-history-375');
  });

  it('pages the history with Show more, keeping the keyboard in place', async () => {
    const order = await newOrder([1]);
    for (let i = 1; i <= 12; i++) {
      const reply = await server.call(`/sales-order/${order.salesOrderId}`, { method: 'PATCH', body: { comment: `Note ${i}` }, headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(reply.status, reply.text).to.equal(200);
    }
    await logInAt(`#/orders/${order.salesOrderId}`, VIEWER);
    await orderShown(order.salesOrderId);
    await showHistory();
    let rows = await historyRows();
    expect(rows).to.have.length(10);
    expect(rows[0].changes).to.include('Comment: Note 11 → changed to Note 12');
    expect(await page.locator('#history-status').textContent()).to.equal('Showing the latest 10 changes.');
    await page.getByRole('button', { name: 'Show more' }).click();
    await page.waitForFunction(() => document.querySelectorAll('#history tbody tr').length === 13);
    rows = await historyRows();
    expect(rows.map((r) => r.operation)).to.deep.equal([...Array(12).fill('patch'), 'create']);
    expect(rows[11].changes).to.include('Comment: (none) → changed to Note 1');
    expect(await visible('#history-more'), 'nothing more to show').to.equal(false);
    expect(await page.locator('#history-status').textContent()).to.equal('Showing all 13 changes.');
    // Focus went to the first entry that appeared.
    expect(await page.evaluate(() => document.activeElement?.closest('tr')?.rowIndex)).to.equal(11);
    await page.setViewportSize({ width: 375, height: 800 });
    await fits('access-history-paged-375');
  });

  it('shows the server\'s message when a write is refused anyway (403: permissions changed meanwhile)', async () => {
    const order = await newOrder([2]);
    // What the server answers a Viewer who saves: the refusal the page gets when its user lost the permission.
    const refused = await server.call(`/sales-order/${order.salesOrderId}`, {
      method: 'PUT', token: await tokenOf(VIEWER),
      body: { status: 1, onlineOrderFlag: true, dueDate: '2030-01-15T00:00:00.000Z', revisionNumber: order.revisionNumber },
    });
    expect(refused.status, refused.text).to.equal(403);
    const text = refused.body.messages[0].message;
    await logInAt(`#/orders/${order.salesOrderId}`, CLERK);
    await orderShown(order.salesOrderId);
    await page.route(`**/api/sales-order/${order.salesOrderId}`, (route) => (route.request().method() === 'PUT'
      ? route.fulfill({ status: 403, contentType: 'application/json', body: refused.text })
      : route.continue()));
    await page.getByLabel('Comment').fill('Not allowed any more');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#order-messages [role="alert"]').waitFor();
    expect(await page.locator('#order-messages').textContent()).to.contain('The order was not saved.').and.to.contain(text);
    expect(await page.locator('#save-status').textContent()).to.equal('The order was not saved.');
    // The form stays as typed and usable.
    expect(await page.getByLabel('Comment').inputValue()).to.equal('Not allowed any more');
    expect((await apiOrder(order.salesOrderId)).comment).to.equal(undefined);

    // A line write refused the same way: the server's text above the lines, the typed quantity kept.
    const line = order.lines[0];
    const lineRefused = await server.call(`/sales-order/${order.salesOrderId}/detail/${line.salesOrderDetailId}`, {
      method: 'PATCH', token: await tokenOf(VIEWER), body: { orderQty: 3 }, headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(lineRefused.status, lineRefused.text).to.equal(403);
    await page.route(`**/api/sales-order/${order.salesOrderId}/detail/${line.salesOrderDetailId}`, (route) => (route.request().method() === 'PATCH'
      ? route.fulfill({ status: 403, contentType: 'application/json', body: lineRefused.text })
      : route.continue()));
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).fill('3');
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).press('Enter');
    await page.locator('#lines-messages [role="alert"]').waitFor();
    expect(await page.locator('#lines-messages').textContent()).to.contain(lineRefused.body.messages[0].message);
    expect(await page.locator(`#line-${line.salesOrderDetailId}-qty`).inputValue()).to.equal('3');
    expect((await apiOrder(order.salesOrderId)).lines[0].orderQty).to.equal(2);
  });
});
