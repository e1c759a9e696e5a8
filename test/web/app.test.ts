import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type PageProblems, launchChromium, requireChromium, screenshot, watchPage } from '../support/browser.js';
import type { TestServer } from '../support/server.js';
import { closeContext, fillLogIn, startWebApp } from '../support/web-app.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const USER = 'olga';
const PASSWORD = 'olga-password-1';
const DISPLAY_NAME = 'Olga Orders';
const EXPIRED_TEXT = 'Your session has expired. Please log in again.';
const PAGE_SIZE = 25;
const WIDTHS = [375, 1280] as const;

interface Row {
  id: number;
  number: string;
  status: string;
  territory: string;
  person: string;
  customer: string;
  totalDue: string;
}

interface LookupRow {
  id: number;
  text: string;
  isActive: boolean;
}

/**
 * The browser app, driven in Chromium against a real server that serves it (Web:Enabled, API under /api). What
 * the pages show is checked against what the API answers for the same criteria.
 */
describeOneStore('web app in Chromium', WHY_ONE_STORE.web, function () {
  this.timeout(90_000);
  let server: TestServer;
  let browser: Browser;
  let appUrl: string;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  const lookups: Record<string, LookupRow[]> = {};

  before(async function () {
    requireChromium(this, 'the browser tests of the web app');
    ({ server, appUrl } = await startWebApp(USER, PASSWORD, DISPLAY_NAME));
    for (const type of ['sales-order-status', 'sales-territory', 'sales-person']) {
      const reply = await server.call(`/lookup-table/${type}`);
      expect(reply.status, reply.text).to.equal(200);
      lookups[type] = reply.body.result.data as LookupRow[];
    }
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    problems = await watchPage(page);
  });
  afterEach(async function () {
    if (!context) return;
    await closeContext(this, page, context, 'failed-');
    context = undefined as unknown as BrowserContext;
    expect(problems.list, 'errors or CSP violations in the page').to.deep.equal([]);
  });

  // ---- helpers -------------------------------------------------------------------------------------------------

  const statusText = (id: number) => lookups['sales-order-status'].find((i) => i.id === id)!.text;

  async function open(hash = '') {
    await page.goto(appUrl + hash);
  }

  async function loginForm(): Promise<void> {
    await page.getByRole('heading', { level: 1, name: 'Log in to restlayer orders' }).waitFor();
  }

  const logIn = (user = USER, password = PASSWORD) => fillLogIn(page, user, password);

  /** Waits until the list shows what the URL hash asks for. */
  async function listed(): Promise<void> {
    await page.waitForFunction(() => {
      const results = document.querySelector('#results');
      return results?.getAttribute('aria-busy') === 'false' && results.getAttribute('data-loaded') === location.hash;
    });
    // A list the server refused (a 503 on a loaded machine, say) shows no rows: said as what it is, not as rows missing.
    expect(await page.locator('.list-messages [role="alert"]').allTextContents(), 'the list shows an error').to.deep.equal([]);
  }

  async function rows(): Promise<Row[]> {
    return page.$$eval('#results tbody tr[data-order-id]', (trs) => trs.map((tr) => {
      const cell = (field: string) => tr.querySelector(`[data-field="${field}"]`)!.textContent!.trim();
      return {
        id: Number((tr as HTMLElement).dataset.orderId),
        number: cell('salesOrderNumber'),
        status: cell('status'),
        territory: cell('territoryId'),
        person: cell('salesPersonId'),
        customer: cell('customerName'),
        totalDue: cell('totalDue'),
      };
    }));
  }

  /** The ids and total the API answers for a query string (sort and paging added as the app sends them). */
  async function apiList(query: string, { skip = 0, sort = 'orderDate', dir = 'Descending' } = {}): Promise<{ ids: number[]; total: number; items: Record<string, unknown>[] }> {
    const reply = await server.call(`/sales-order?${query}${query ? '&' : ''}skip=${skip}&take=${PAGE_SIZE}&getTotalCount=true&sort[0].fieldName=${sort}&sort[0].sortDirection=${dir}`);
    expect(reply.status, reply.text).to.equal(200);
    return { ids: reply.body.result.map((o: { salesOrderId: number }) => o.salesOrderId), total: reply.body.totalCount!, items: reply.body.result };
  }

  async function apiOrder(id: number) {
    const reply = await server.call(`/sales-order/${id}`);
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.result as { revisionNumber: number; comment?: string; status: number; onlineOrderFlag: boolean; dueDate: string; shipDate?: string; purchaseOrderNumber?: string; accountNumber?: string };
  }

  /** Opens an order from the list by its link, and waits for its form. */
  async function openOrder(id: number): Promise<void> {
    await page.locator(`#results tr[data-order-id="${id}"] a`).click();
    await orderShown(id);
  }

  async function orderShown(id: number): Promise<void> {
    await page.waitForFunction((wanted) => location.hash === `#/orders/${wanted}` && !!document.querySelector('.order-screen[data-loaded] #order-form'), id);
  }

  /**
   * The current screen at phone and desktop width: no sideways scrolling, every form control labelled; a PNG of
   * each goes to test-results/screenshots/<name>-<width>.png. Leaves the page at 1280 px.
   */
  async function layout(name: string): Promise<void> {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${name} at ${width} px scrolls sideways`).to.be.at.most(0);
      const unlabelled = await page.$$eval('input, select, textarea', (controls) => controls
        .filter((c) => (c as HTMLInputElement).labels?.length === 0 && !c.getAttribute('aria-label') && (c as HTMLElement).offsetParent !== null)
        .map((c) => c.outerHTML));
      expect(unlabelled, `${name}: controls without a label`).to.deep.equal([]);
      await screenshot(page, `${name}-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** The session cookie of the browser context (HttpOnly: the page cannot see it). */
  async function sessionCookie(): Promise<string> {
    const cookie = (await context.cookies()).find((c) => c.name === 'restlayer.sid');
    expect(cookie, 'the session cookie').to.not.equal(undefined);
    expect(cookie!.httpOnly).to.equal(true);
    return cookie!.value;
  }

  // ---- tests ---------------------------------------------------------------------------------------------------

  it('shows the login form, refuses a wrong password next to the form, and logs in to the order list', async () => {
    await open();
    await loginForm();
    expect(await page.locator('#session-notice').count(), 'no expiry text on a first visit').to.equal(0);
    expect(await page.locator('#account').isVisible(), 'no logout before login').to.equal(false);
    await layout('login');

    await page.getByLabel('User name').fill(USER);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    const refused = page.locator('#login-messages [role="alert"]');
    await refused.waitFor();
    const wrong = await fetch(`${server.url}/auth/cookie`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userName: 'nobody', password: 'x' }) });
    const expected = ((await wrong.json()) as { messages: { message: string }[] }).messages[0].message;
    expect((await refused.textContent())!.trim()).to.equal(expected);
    await layout('login-refused');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sales orders' }).waitFor();
    await listed();
    expect(await page.locator('#user-name').textContent()).to.equal(`Logged in as ${DISPLAY_NAME}`);
    const newest = await apiList('');
    expect((await rows()).map((r) => r.id)).to.deep.equal(newest.ids);
    expect(await page.locator('#list-summary').textContent()).to.equal(`Orders 1–${PAGE_SIZE} of ${newest.total.toLocaleString('en-US')}`);
    await layout('list');
  });

  it('a path outside /api that is nothing shows the app (with the 404), not the API\'s JSON', async () => {
    const response = await page.goto(`${appUrl}no/such-page`);
    expect(response!.status()).to.equal(404);
    expect(response!.headers()['content-type']).to.equal('text/html; charset=utf-8');
    await loginForm();
    // The browser reports the page's own 404 in its console; nothing else may go wrong.
    problems.list.splice(0, problems.list.length, ...problems.list.filter((p) => !/status of 404/.test(p)));
  });

  it('filters by a status and a territory picked from the dropdowns, by customer name, sales person and order dates', async () => {
    await open();
    await logIn();
    await listed();

    // The dropdowns hold the lookup tables.
    const optionTexts = (label: string) => page.getByLabel(label, { exact: true }).locator('option').allTextContents();
    const expectedOptions = (type: string, any: string) => [any, ...lookups[type].map((i) => (i.isActive ? i.text : `${i.text} (inactive)`))];
    expect(await optionTexts('Status')).to.deep.equal(expectedOptions('sales-order-status', 'Any status'));
    expect(await optionTexts('Territory')).to.deep.equal(expectedOptions('sales-territory', 'Any territory'));
    expect(await optionTexts('Sales person')).to.deep.equal(expectedOptions('sales-person', 'Anyone'));

    const territory = lookups['sales-territory'][1];
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Shipped' });
    await page.getByLabel('Territory').selectOption({ label: territory.text });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal(`#/orders?status=5&territory=${territory.id}`);
    const shown = await rows();
    const matching = await apiList(`status=5&territoryId=${territory.id}`);
    expect(matching.total).to.be.greaterThan(PAGE_SIZE);
    expect(shown.map((r) => r.id)).to.deep.equal(matching.ids);
    expect(new Set(shown.map((r) => r.status))).to.deep.equal(new Set([statusText(5)]));
    expect(new Set(shown.map((r) => r.territory))).to.deep.equal(new Set([territory.text]));
    expect(await page.locator('#list-summary').textContent()).to.equal(`Orders 1–${PAGE_SIZE} of ${matching.total.toLocaleString('en-US')}`);
    await layout('list-filtered');

    // A sales person of that territory, part of a customer's name and an order-date range, on top.
    const sample = matching.items.find((o) => o.salesPersonId)!;
    const person = lookups['sales-person'].find((p) => p.id === sample.salesPersonId)!;
    // Four letters from the middle of the customer's longest word: a case-insensitive part of the name.
    const word = String(sample.customerName).split(/\s+/).sort((a, b) => b.length - a.length)[0];
    const namePart = word.slice(1, 5);
    const day = String(sample.orderDate).slice(0, 10);
    await page.getByLabel('Sales person').selectOption({ label: person.isActive ? person.text : `${person.text} (inactive)` });
    await page.getByLabel('Order number or customer').fill(namePart);
    await page.getByLabel('Order date from').fill('2021-01-01');
    await page.getByLabel('Order date to').fill(day);
    await page.getByLabel('Order number or customer').press('Enter');
    await listed();
    const narrowed = await apiList(`status=5&territoryId=${territory.id}&salesPersonId=${person.id}&customerName.operator=CN&customerName=${encodeURIComponent(namePart)}`
      + `&orderDate.operator=BW&orderDate=2021-01-01T00:00:00.000Z&orderDate=${day}T23:59:59.999Z`);
    expect(narrowed.ids).to.include(sample.salesOrderId);
    const narrowedRows = await rows();
    expect(narrowedRows.map((r) => r.id)).to.deep.equal(narrowed.ids);
    for (const r of narrowedRows) expect(r.customer.toLowerCase()).to.include(namePart.toLowerCase());

    // An order number goes to the order-number filter.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/orders');
    expect(await page.getByLabel('Status', { exact: true }).inputValue()).to.equal('');
    await page.getByLabel('Order number or customer').fill(String(sample.salesOrderNumber));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await listed();
    expect((await rows()).map((r) => r.number)).to.deep.equal([sample.salesOrderNumber]);
  });

  it('pages through the list and sorts it by a column, both ways', async () => {
    await open();
    await logIn();
    await listed();
    const all = await apiList('');
    const pages = Math.ceil(all.total / PAGE_SIZE);
    expect(await page.locator('#page-text').textContent()).to.equal(`Page 1 of ${pages.toLocaleString('en-US')}`);
    expect(await page.locator('#page-prev').isDisabled()).to.equal(true);

    await page.getByRole('button', { name: 'Next page' }).click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/orders?page=2');
    expect((await rows()).map((r) => r.id)).to.deep.equal((await apiList('', { skip: PAGE_SIZE })).ids);
    expect(await page.locator('#page-text').textContent()).to.equal(`Page 2 of ${pages.toLocaleString('en-US')}`);
    expect(await page.locator('#page-prev').isDisabled()).to.equal(false);

    // Sorting starts again at page 1; a second press turns the order around.
    const sortButton = page.locator('button[data-sort="totalDue"]');
    await sortButton.click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/orders?sort=totalDue&dir=asc');
    expect((await rows()).map((r) => r.id)).to.deep.equal((await apiList('', { sort: 'totalDue', dir: 'Ascending' })).ids);
    expect(await page.locator('th:has(button[data-sort="totalDue"])').getAttribute('aria-sort')).to.equal('ascending');
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.sort), 'focus stays on the sort button').to.equal('totalDue');
    await page.keyboard.press('Enter');
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/orders?sort=totalDue&dir=desc');
    const descending = await apiList('', { sort: 'totalDue', dir: 'Descending' });
    expect((await rows()).map((r) => r.id)).to.deep.equal(descending.ids);
    expect(await page.locator('th:has(button[data-sort="totalDue"])').getAttribute('aria-sort')).to.equal('descending');

    await page.getByRole('button', { name: 'Next page' }).click();
    await listed();
    expect((await rows()).map((r) => r.id)).to.deep.equal((await apiList('', { skip: PAGE_SIZE, sort: 'totalDue', dir: 'Descending' })).ids);
    await layout('list-sorted-page-2');

    // The hash is the state: a reload shows the same page.
    await page.reload();
    await listed();
    expect((await rows()).map((r) => r.id)).to.deep.equal((await apiList('', { skip: PAGE_SIZE, sort: 'totalDue', dir: 'Descending' })).ids);
  });

  it('opens an order and saves a change', async () => {
    await open();
    await logIn();
    await listed();
    const id = (await rows())[0].id;
    const before = await apiOrder(id);
    await openOrder(id);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.match(/^Order SO\d+$/);
    expect(await page.getByLabel('Status').inputValue()).to.equal(String(before.status));
    expect(await page.getByLabel('Comment').inputValue()).to.equal(before.comment ?? '');
    await layout('order');

    const newStatus = before.status === 2 ? 3 : 2;
    await page.getByLabel('Status').selectOption(String(newStatus));
    await page.getByLabel('Comment').fill('Approved in the browser');
    await page.getByLabel('Purchase order number').fill('PO-BROWSER-1');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const saved = page.locator('#save-status');
    await page.waitForFunction(() => /^Changes saved/.test(document.querySelector('#save-status')?.textContent ?? ''));
    expect(await saved.textContent()).to.equal(`Changes saved (revision ${before.revisionNumber + 1}).`);
    await layout('order-saved');

    const after = await apiOrder(id);
    expect(after).to.include({ status: newStatus, comment: 'Approved in the browser', purchaseOrderNumber: 'PO-BROWSER-1', revisionNumber: before.revisionNumber + 1 });
    // Fields left alone keep their values (PUT replaces the order, so the app sends them all).
    for (const name of ['onlineOrderFlag', 'dueDate', 'shipDate', 'accountNumber'] as const) expect(after[name], name).to.equal(before[name]);

    // Back to the list it came from.
    await page.getByRole('link', { name: '← Back to the orders' }).click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/orders');
  });

  it('shows each validation message next to its field and saves nothing', async () => {
    await open();
    await logIn();
    await listed();
    const id = (await rows())[1].id;
    const before = await apiOrder(id);
    await openOrder(id);

    await page.getByLabel('Comment').fill('x'.repeat(129));
    await page.getByLabel('Purchase order number').fill('P'.repeat(26));
    await page.getByRole('button', { name: 'Save changes' }).click();
    const commentError = page.locator('#order-comment-error');
    await commentError.waitFor();

    // The server's own messages, each under its field, announced with it (aria-describedby) and marked invalid.
    const reply = await server.call(`/sales-order/${id}`, { method: 'PUT', body: { status: 1, onlineOrderFlag: true, comment: 'x'.repeat(129), purchaseOrderNumber: 'P'.repeat(26) } });
    expect(reply.status).to.equal(400);
    const byProperty = Object.fromEntries(reply.body.messages.map((m) => [m.property, m.message]));
    // In the form's words: the field's label instead of the wire name.
    expect(await commentError.textContent()).to.equal(byProperty.comment.replace(/^comment /, 'Comment '));
    expect(await page.locator('#order-po-error').textContent()).to.equal(byProperty.purchaseOrderNumber.replace(/^purchaseOrderNumber /, 'Purchase order number '));
    const comment = page.getByLabel('Comment');
    expect(await comment.getAttribute('aria-invalid')).to.equal('true');
    expect((await comment.getAttribute('aria-describedby'))!.split(' ')).to.include('order-comment-error');
    expect(await page.locator('#order-account-error').isVisible()).to.equal(false);
    // Focus goes to the first field in error, so the message is read out with it.
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('order-po');
    await layout('order-validation');
    expect((await apiOrder(id)).revisionNumber, 'nothing saved').to.equal(before.revisionNumber);

    // Fixed, it saves, and the messages go.
    await comment.fill('x'.repeat(128));
    await page.getByLabel('Purchase order number').fill('P'.repeat(25));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction(() => /^Changes saved/.test(document.querySelector('#save-status')?.textContent ?? ''));
    expect(await commentError.isVisible()).to.equal(false);
    expect(await comment.getAttribute('aria-invalid')).to.equal(null);
    expect((await apiOrder(id)).comment).to.equal('x'.repeat(128));
  });

  it('reports a concurrency conflict clearly and reloads the order on request', async () => {
    await open();
    await logIn();
    await listed();
    const id = (await rows())[2].id;
    await openOrder(id);

    // Someone else saves the order behind the page.
    const current = await apiOrder(id);
    const behind = await server.call(`/sales-order/${id}`, {
      method: 'PUT',
      body: { status: current.status, onlineOrderFlag: current.onlineOrderFlag, dueDate: current.dueDate, comment: 'Changed behind the page', revisionNumber: current.revisionNumber },
    });
    expect(behind.status, behind.text).to.equal(200);

    await page.getByLabel('Comment').fill('My change');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const conflict = page.locator('#conflict');
    await conflict.waitFor();
    expect(await conflict.getAttribute('role')).to.equal('alert');
    expect(await conflict.getByRole('heading').textContent()).to.equal('Someone else changed this order');
    expect(await page.evaluate(() => document.activeElement?.id), 'focus moves to the conflict').to.equal('conflict');
    expect((await apiOrder(id)).comment, 'the other change stays').to.equal('Changed behind the page');
    await layout('order-conflict');

    await page.getByRole('button', { name: 'Reload the order' }).click();
    await page.waitForFunction(() => /^Reloaded/.test(document.querySelector('#save-status')?.textContent ?? ''));
    expect(await conflict.count()).to.equal(0);
    expect(await page.getByLabel('Comment').inputValue()).to.equal('Changed behind the page');
    expect(await page.locator('[data-fact="revisionNumber"]').textContent()).to.equal(String(current.revisionNumber + 1));

    await page.getByLabel('Comment').fill('My change, after reloading');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction(() => /^Changes saved/.test(document.querySelector('#save-status')?.textContent ?? ''));
    expect((await apiOrder(id)).comment).to.equal('My change, after reloading');
  });

  it('when the session ends on the list (logout in another tab), asks for a login and returns to the same filtered page', async () => {
    await open();
    await logIn();
    await listed();
    const territory = lookups['sales-territory'][3];
    await page.goto(`${appUrl}#/orders?status=5&territory=${territory.id}&page=2&sort=totalDue&dir=asc`);
    await listed();

    // Another tab of the same browser logs out: the cookie session ends on the server.
    const other = await context.newPage();
    const otherProblems = await watchPage(other);
    await other.goto(appUrl);
    await other.waitForFunction(() => document.querySelector('#results')?.getAttribute('aria-busy') === 'false');
    await other.getByRole('button', { name: 'Log out' }).click();
    await other.getByRole('status').filter({ hasText: 'You have logged out.' }).waitFor();
    await other.close();
    expect(otherProblems.list).to.deep.equal([]);

    // The next action here finds the session over.
    await page.bringToFront();
    await page.getByRole('button', { name: 'Next page' }).click();
    await loginForm();
    const notice = page.locator('#session-notice');
    expect((await notice.textContent())!.trim()).to.equal(EXPIRED_TEXT);
    expect(await notice.getAttribute('role')).to.equal('alert');
    const where = `#/orders?status=5&territory=${territory.id}&page=3&sort=totalDue&dir=asc`;
    expect(await page.evaluate(() => location.hash)).to.equal(where);
    expect(await page.locator('#account').isVisible()).to.equal(false);
    expect(await page.evaluate(() => document.activeElement?.id), 'focus on the user name').to.equal('login-user');
    await layout('session-expired');

    await logIn();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal(where);
    expect(await page.getByLabel('Status', { exact: true }).inputValue()).to.equal('5');
    expect(await page.getByLabel('Territory').inputValue()).to.equal(String(territory.id));
    const expected = await apiList(`status=5&territoryId=${territory.id}`, { skip: 2 * PAGE_SIZE, sort: 'totalDue', dir: 'Ascending' });
    expect((await rows()).map((r) => r.id)).to.deep.equal(expected.ids);
    expect(await page.locator('#page-text').textContent()).to.match(/^Page 3 of /);
  });

  it('when the session ends on an order (removed from the store), keeps the unsaved changes over the new login', async () => {
    await open();
    await logIn();
    await listed();
    const id = (await rows())[3].id;
    const before = await apiOrder(id);
    await openOrder(id);
    await page.getByLabel('Comment').fill('Typed before the session ended');
    await page.getByLabel('Account number').fill('10-4030-999999');

    // The server forgets the session (as after the idle timeout).
    const key = await sessionCookie();
    expect(await server.infrastructure.cookieSessions.get(key)).to.not.equal(undefined);
    await server.infrastructure.cookieSessions.destroy(key);

    await page.getByRole('button', { name: 'Save changes' }).click();
    await loginForm();
    expect((await page.locator('#session-notice').textContent())!.trim()).to.equal(EXPIRED_TEXT);
    expect(await page.evaluate(() => location.hash)).to.equal(`#/orders/${id}`);
    expect((await apiOrder(id)).revisionNumber, 'nothing saved').to.equal(before.revisionNumber);

    await logIn();
    await orderShown(id);
    expect(await page.getByLabel('Comment').inputValue()).to.equal('Typed before the session ended');
    expect(await page.getByLabel('Account number').inputValue()).to.equal('10-4030-999999');
    expect(await page.locator('#save-status').textContent()).to.match(/unsaved changes were kept/);
    await layout('order-after-relogin');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction(() => /^Changes saved/.test(document.querySelector('#save-status')?.textContent ?? ''));
    expect(await apiOrder(id)).to.include({ comment: 'Typed before the session ended', accountNumber: '10-4030-999999', revisionNumber: before.revisionNumber + 1 });
  });

  it('can be used with the keyboard alone, with a visible focus, and logs out', async () => {
    await open();
    await loginForm();
    /** Tab until `done` holds for the focused element (at most `max` presses: an order has up to 10 lines of 4 stops before its form); every stop must show its focus. */
    const tabTo = async (done: string, { max = 120, back = false } = {}) => {
      for (let i = 0; i < max; i++) {
        await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
        const focus = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          const style = getComputedStyle(el);
          return { body: el === document.body, html: el.outerHTML.slice(0, 80), outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
        });
        // Past the last element focus leaves the page (the browser's own controls), then comes back at the top.
        if (focus.body) continue;
        expect(focus.outline, `focus visible on ${focus.html} (${focus.outline} ${focus.width})`).to.not.equal('none');
        expect(focus.width, `focus outline on ${focus.html} (${focus.outline} ${focus.width})`).to.be.at.least(2);
        if (await page.evaluate((selector) => document.activeElement?.matches(selector) ?? false, done)) return;
      }
      expect.fail(`Tab never reached ${done}`);
    };

    // The form takes focus when it appears; the skip link comes first in the tab order.
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('login-user');
    await tabTo('#skip-link', { back: true });
    expect(await page.locator('#skip-link').isVisible()).to.equal(true);
    await tabTo('#login-user');
    await page.keyboard.type(USER);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('login-password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Sales orders' }).waitFor();
    await listed();
    await screenshot(page, 'keyboard-focus-list');

    // Filters: a dropdown by keys, then Enter in the search box applies them.
    await tabTo('#filter-status');
    await page.keyboard.press('ArrowDown');
    await tabTo('#filter-q');
    await page.keyboard.press('Enter');
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal(`#/orders?status=${lookups['sales-order-status'][0].id}`);

    // The first order, opened with Enter; its comment edited and saved with the keyboard.
    const first = (await rows())[0];
    await tabTo(`#results tr[data-order-id="${first.id}"] a`);
    await page.keyboard.press('Enter');
    await orderShown(first.id);
    await tabTo('#order-comment');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Saved with the keyboard');
    await tabTo('#order-form button[type="submit"]');
    await screenshot(page, 'keyboard-focus-save');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^Changes saved/.test(document.querySelector('#save-status')?.textContent ?? ''));
    expect((await apiOrder(first.id)).comment).to.equal('Saved with the keyboard');

    // Log out, from the header.
    const key = await sessionCookie();
    await tabTo('#logout', { back: true });
    await page.keyboard.press('Enter');
    await loginForm();
    expect((await page.getByRole('status').filter({ hasText: 'You have logged out.' }).count())).to.equal(1);
    expect(await page.locator('#session-notice').textContent()).to.not.include(EXPIRED_TEXT);
    expect(await server.infrastructure.cookieSessions.get(key), 'the session ends on the server').to.equal(undefined);
    await layout('logged-out');

    // A reload after logging out is a plain login, not an expired session.
    await page.reload();
    await loginForm();
    expect(await page.locator('#session-notice').count()).to.equal(0);
  });
});
