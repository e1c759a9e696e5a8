import { expect } from 'chai';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { type PageProblems, launchChromium, requireChromium, screenshot, watchPage } from '../support/browser.js';
import type { TestServer } from '../support/server.js';
import { closeContext, fillLogIn, startWebApp } from '../support/web-app.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const USER = 'carla';
const PASSWORD = 'carla-password-1';
const EXPIRED_TEXT = 'Your session has expired. Please log in again.';
const PAGE_SIZE = 25;
const WIDTHS = [375, 1280] as const;

interface CustomerRow {
  id: number;
  name: string;
  accountNumber: string;
  territory: string;
}

interface ApiCustomer {
  customerId: number;
  name: string;
  accountNumber?: string;
  territoryId?: number;
  revisionNumber: number;
}

/** A write the page sent to the customer API: its verb, content type and body. */
interface SentWrite {
  method: string;
  contentType: string | undefined;
  body: Record<string, unknown> | undefined;
}

/**
 * The customer screens of the browser app, driven in Chromium against a real server (Web:Enabled, API under /api):
 * what they show is compared with what the API answers, and what they save is read back through the API.
 */
describeOneStore('web app in Chromium: customers', WHY_ONE_STORE.web, function () {
  this.timeout(90_000);
  let server: TestServer;
  let browser: Browser;
  let appUrl: string;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let writes: SentWrite[];
  let territories: { id: number; text: string; isActive: boolean }[];

  before(async function () {
    requireChromium(this, 'the browser tests of the customer screens');
    ({ server, appUrl } = await startWebApp(USER, PASSWORD, 'Carla Customers'));
    const reply = await server.call('/lookup-table/sales-territory');
    expect(reply.status, reply.text).to.equal(200);
    territories = reply.body.result.data;
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
    writes = [];
    page.on('request', (request: Request) => {
      if (/\/api\/customer(\/|$)/.test(new URL(request.url()).pathname) && request.method() !== 'GET') {
        const text = request.postData();
        writes.push({ method: request.method(), contentType: request.headers()['content-type'], body: text ? JSON.parse(text) : undefined });
      }
    });
  });
  afterEach(async function () {
    if (!context) return;
    await closeContext(this, page, context, 'failed-');
    context = undefined as unknown as BrowserContext;
    expect(problems.list, 'errors or CSP violations in the page').to.deep.equal([]);
  });

  // ---- helpers -------------------------------------------------------------------------------------------------

  const territoryText = (id: number | undefined) => (id === undefined ? '—' : territories.find((t) => t.id === id)!.text);

  async function logIn(hash = '#/customers'): Promise<void> {
    await page.goto(appUrl + hash);
    await fillLogIn(page, USER, PASSWORD);
  }

  /** Waits until the customer list shows what the URL hash asks for. */
  async function listed(): Promise<void> {
    await page.waitForFunction(() => {
      const results = document.querySelector('.customers-screen #results');
      return results?.getAttribute('aria-busy') === 'false' && results.getAttribute('data-loaded') === location.hash;
    });
    // A list the server refused (a 503 on a loaded machine, say) shows no rows: said as what it is, not as rows missing.
    expect(await page.locator('.list-messages [role="alert"]').allTextContents(), 'the list shows an error').to.deep.equal([]);
  }

  async function rows(): Promise<CustomerRow[]> {
    return page.$$eval('#results tbody tr[data-customer-id]', (trs) => trs.map((tr) => {
      const cell = (field: string) => tr.querySelector(`[data-field="${field}"]`)!.textContent!.trim();
      return { id: Number((tr as HTMLElement).dataset.customerId), name: cell('name'), accountNumber: cell('accountNumber'), territory: cell('territoryId') };
    }));
  }

  /** What the API lists for a query string, with the paging and sort the app sends. */
  async function apiList(query: string, { skip = 0, sort = 'name', dir = 'Ascending' } = {}): Promise<{ items: ApiCustomer[]; total: number }> {
    const reply = await server.call(`/customer?${query}${query ? '&' : ''}skip=${skip}&take=${PAGE_SIZE}&getTotalCount=true&sort[0].fieldName=${sort}&sort[0].sortDirection=${dir}`);
    expect(reply.status, reply.text).to.equal(200);
    return { items: reply.body.result, total: reply.body.totalCount! };
  }

  const asRows = (items: ApiCustomer[]): CustomerRow[] => items.map((c) => ({ id: c.customerId, name: c.name, accountNumber: c.accountNumber ?? '—', territory: territoryText(c.territoryId) }));

  async function apiCustomer(id: number): Promise<ApiCustomer> {
    const reply = await server.call(`/customer/${id}`);
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.result;
  }

  async function customerShown(id: number): Promise<void> {
    await page.waitForFunction((wanted) => location.hash === `#/customers/${wanted}` && !!document.querySelector('.customer-screen[data-loaded] #customer-form'), id);
  }

  const statusText = () => page.locator('#save-status').textContent();
  const waitForStatus = (pattern: RegExp) => page.waitForFunction((source) => new RegExp(source).test(document.querySelector('#save-status')?.textContent ?? ''), pattern.source);

  /** A customer that sales orders refer to (every sample order has one). */
  async function customerWithOrders(): Promise<number> {
    const reply = await server.call('/sales-order?take=1');
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.result[0].customerId;
  }

  /** The screen at phone and desktop width: no sideways scrolling, every control labelled; PNGs of both. */
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

  // ---- tests ---------------------------------------------------------------------------------------------------

  it('lists customers by name and filters them by part of the name, account number and territory', async () => {
    await logIn();
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
    await listed();
    const all = await apiList('');
    expect(all.total).to.be.greaterThan(PAGE_SIZE);
    expect(await rows()).to.deep.equal(asRows(all.items));
    expect(await page.locator('#list-summary').textContent()).to.equal(`Customers 1–${PAGE_SIZE} of ${all.total.toLocaleString('en-US')}`);
    expect(await page.locator('th[aria-sort]').allTextContents()).to.deep.equal(['Name ▲']);
    expect(await page.getByLabel('Territory', { exact: true }).locator('option').allTextContents())
      .to.deep.equal(['Any territory', ...territories.map((t) => (t.isActive ? t.text : `${t.text} (inactive)`))]);
    await layout('customers');

    // Part of a name (another case), from a customer of the first page.
    const sample = all.items[3];
    const part = sample.name.split(/\s+/).sort((a, b) => b.length - a.length)[0].slice(1, 4).toUpperCase();
    await page.getByLabel('Name', { exact: true }).fill(part);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal(`#/customers?name=${encodeURIComponent(part)}`);
    const byName = await apiList(`name.operator=CN&name=${encodeURIComponent(part)}`);
    expect(byName.total).to.be.lessThan(all.total);
    expect(await rows()).to.deep.equal(asRows(byName.items));
    expect((await rows()).every((r) => r.name.toUpperCase().includes(part))).to.equal(true);

    // Account number and territory on top.
    const territory = territories.find((t) => t.id === sample.territoryId)!;
    const accountPart = sample.accountNumber!.slice(-4);
    await page.getByLabel('Account number', { exact: true }).fill(accountPart);
    await page.getByLabel('Territory', { exact: true }).selectOption({ label: territory.text });
    await page.getByLabel('Account number', { exact: true }).press('Enter');
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal(`#/customers?name=${encodeURIComponent(part)}&account=${accountPart}&territory=${territory.id}`);
    const narrowed = await apiList(`name.operator=CN&name=${encodeURIComponent(part)}&accountNumber.operator=CN&accountNumber=${accountPart}&territoryId=${territory.id}`);
    expect(narrowed.items.map((c) => c.customerId)).to.include(sample.customerId);
    expect(await rows()).to.deep.equal(asRows(narrowed.items));
    expect(new Set((await rows()).map((r) => r.territory))).to.deep.equal(new Set([territory.text]));
    await layout('customers-filtered');

    // Nothing matches: said so; Clear filters shows everyone again.
    await page.getByLabel('Name', { exact: true }).fill('no customer is called this');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await listed();
    expect(await page.locator('#list-summary').textContent()).to.equal('No customers match these filters.');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/customers');
    expect(await page.getByLabel('Territory', { exact: true }).inputValue()).to.equal('');
    expect(await rows()).to.deep.equal(asRows(all.items));
  });

  it('sorts by every sortable column, both ways, and pages; the hash keeps it over a reload', async () => {
    await logIn();
    await listed();
    for (const [sort, label] of [['customerId', 'Customer number'], ['accountNumber', 'Account number'], ['territoryId', 'Territory'], ['name', 'Name']] as const) {
      await page.locator(`button[data-sort="${sort}"]`).click();
      await listed();
      // A first press on a column sorts it ascending (name too: by then the list is sorted by territory).
      const dir = 'Ascending';
      expect((await rows()).map((r) => r.id), `${sort} ${dir}`).to.deep.equal((await apiList('', { sort, dir })).items.map((c) => c.customerId));
      expect(await page.locator(`th:has(button[data-sort="${sort}"])`).getAttribute('aria-sort')).to.equal(dir.toLowerCase());
      expect(await page.locator(`button[data-sort="${sort}"]`).getAttribute('aria-label')).to.include(`${label}: sort`);
    }
    // A second press reverses.
    await page.locator('button[data-sort="name"]').click();
    await listed();
    expect((await rows()).map((r) => r.id)).to.deep.equal((await apiList('', { sort: 'name', dir: 'Descending' })).items.map((c) => c.customerId));
    expect(await page.locator('th:has(button[data-sort="name"])').getAttribute('aria-sort')).to.equal('descending');
    await page.locator('button[data-sort="accountNumber"]').click();
    await listed();
    await page.locator('button[data-sort="accountNumber"]').click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/customers?sort=accountNumber&dir=desc');
    await page.getByRole('button', { name: 'Next page' }).click();
    await listed();
    const page2 = (await apiList('', { skip: PAGE_SIZE, sort: 'accountNumber', dir: 'Descending' })).items.map((c) => c.customerId);
    expect((await rows()).map((r) => r.id)).to.deep.equal(page2);
    expect(await page.locator('#page-text').textContent()).to.match(/^Page 2 of /);
    await layout('customers-sorted-page-2');

    await page.reload();
    await listed();
    expect((await rows()).map((r) => r.id)).to.deep.equal(page2);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await listed();
    expect(await page.locator('#page-prev').isDisabled()).to.equal(true);
  });

  it('opens a customer from the list and saves only the changed fields with PATCH and the revision', async () => {
    await logIn();
    await listed();
    const [first] = await rows();
    const before = await apiCustomer(first.id);
    await page.locator(`#results tr[data-customer-id="${first.id}"] a`).click();
    await customerShown(first.id);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal(`Customer ${before.name}`);
    expect(await page.getByLabel('Name').inputValue()).to.equal(before.name);
    expect(await page.getByLabel('Account number').inputValue()).to.equal(before.accountNumber ?? '');
    expect(await page.getByLabel('Territory').inputValue()).to.equal(String(before.territoryId ?? ''));
    expect(await page.locator('[data-fact="revisionNumber"]').textContent()).to.equal(String(before.revisionNumber));
    await layout('customer');

    // Saving with nothing changed sends nothing.
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForStatus(/no changes/);
    expect(writes).to.deep.equal([]);

    const other = territories.find((t) => t.isActive && t.id !== before.territoryId)!;
    await page.getByLabel('Name').fill(`${before.name} Ltd`);
    await page.getByLabel('Territory').selectOption(String(other.id));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForStatus(/^Changes saved/);
    expect(await statusText()).to.equal(`Changes saved (revision ${before.revisionNumber + 1}).`);
    expect(writes).to.deep.equal([{
      method: 'PATCH', contentType: 'application/merge-patch+json',
      body: { revisionNumber: before.revisionNumber, name: `${before.name} Ltd`, territoryId: other.id },
    }]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal(`Customer ${before.name} Ltd`);
    expect(await page.locator('[data-fact="revisionNumber"]').textContent()).to.equal(String(before.revisionNumber + 1));
    expect(await apiCustomer(first.id)).to.deep.include({ name: `${before.name} Ltd`, territoryId: other.id, accountNumber: before.accountNumber, revisionNumber: before.revisionNumber + 1 });
    await layout('customer-saved');

    // Emptying the account number clears it (null in the patch); the next save carries the new revision.
    await page.getByLabel('Account number').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForStatus(new RegExp(`^Changes saved \\(revision ${before.revisionNumber + 2}\\)`));
    expect(writes[1].body).to.deep.equal({ revisionNumber: before.revisionNumber + 1, accountNumber: null });
    expect((await apiCustomer(first.id)).accountNumber).to.equal(undefined);

    // Back to the list page it came from.
    await page.getByRole('link', { name: '← Back to the customers' }).click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/customers');
  });

  it('shows validation messages next to their fields and saves nothing', async () => {
    await logIn();
    await listed();
    const id = (await rows())[1].id;
    const before = await apiCustomer(id);
    await page.goto(`${appUrl}#/customers/${id}`);
    await customerShown(id);

    // An empty name is refused by the form itself.
    await page.getByLabel('Name').fill('   ');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.locator('#customer-name-error').textContent()).to.equal('Enter a name: every customer has one.');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('customer-name');
    expect(writes).to.deep.equal([]);

    // Too long a name and account number: the server's own messages, each under its field.
    await page.getByLabel('Name').fill('N'.repeat(101));
    await page.getByLabel('Account number').fill('A'.repeat(16));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#customer-account-error').waitFor();
    const reply = await server.call(`/customer/${id}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { name: 'N'.repeat(101), accountNumber: 'A'.repeat(16) } });
    expect(reply.status).to.equal(400);
    const byProperty = Object.fromEntries(reply.body.messages.map((m) => [m.property, m.message]));
    // In the form's words: the field's label instead of the wire name.
    expect(await page.locator('#customer-name-error').textContent()).to.equal(byProperty.name.replace(/^name /, 'Name '));
    expect(await page.locator('#customer-account-error').textContent()).to.equal(byProperty.accountNumber.replace(/^accountNumber /, 'Account number '));
    const nameInput = page.getByLabel('Name');
    expect(await nameInput.getAttribute('aria-invalid')).to.equal('true');
    expect((await nameInput.getAttribute('aria-describedby'))!.split(' ')).to.include('customer-name-error');
    expect(await page.evaluate(() => document.activeElement?.id), 'focus on the first field in error').to.equal('customer-name');
    expect(await statusText()).to.equal('The customer was not saved: correct the marked fields.');
    await layout('customer-validation');
    expect((await apiCustomer(id)).revisionNumber, 'nothing saved').to.equal(before.revisionNumber);

    await nameInput.fill('N'.repeat(100));
    await page.getByLabel('Account number').fill('A'.repeat(15));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForStatus(/^Changes saved/);
    expect(await nameInput.getAttribute('aria-invalid')).to.equal(null);
    expect(await apiCustomer(id)).to.deep.include({ name: 'N'.repeat(100), accountNumber: 'A'.repeat(15) });
  });

  it('reports a conflict when the customer changed behind the page, and reloads it on request', async () => {
    await logIn();
    await listed();
    const id = (await rows())[2].id;
    await page.goto(`${appUrl}#/customers/${id}`);
    await customerShown(id);

    const current = await apiCustomer(id);
    const behind = await server.call(`/customer/${id}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { accountNumber: 'BEHIND-1', revisionNumber: current.revisionNumber } });
    expect(behind.status, behind.text).to.equal(200);

    // A different field changed here: the revision alone makes it a conflict.
    await page.getByLabel('Name').fill('My new name');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const conflict = page.locator('#conflict');
    await conflict.waitFor();
    expect(writes[0]).to.deep.include({ method: 'PATCH', body: { revisionNumber: current.revisionNumber, name: 'My new name' } });
    expect(await conflict.getAttribute('role')).to.equal('alert');
    expect(await conflict.getByRole('heading').textContent()).to.equal('Someone else changed this customer');
    expect(await page.evaluate(() => document.activeElement?.id), 'focus moves to the conflict').to.equal('conflict');
    expect(await page.getByLabel('Name').inputValue(), 'what was typed stays on screen').to.equal('My new name');
    expect(await apiCustomer(id)).to.deep.include({ name: current.name, accountNumber: 'BEHIND-1' });
    await layout('customer-conflict');

    await page.getByRole('button', { name: 'Reload the customer' }).click();
    await waitForStatus(/^Reloaded/);
    expect(await conflict.count()).to.equal(0);
    expect(await page.getByLabel('Name').inputValue()).to.equal(current.name);
    expect(await page.getByLabel('Account number').inputValue()).to.equal('BEHIND-1');
    expect(await page.locator('[data-fact="revisionNumber"]').textContent()).to.equal(String(current.revisionNumber + 1));

    await page.getByLabel('Name').fill('My new name, after reloading');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForStatus(/^Changes saved/);
    expect(await apiCustomer(id)).to.deep.include({ name: 'My new name, after reloading', accountNumber: 'BEHIND-1', revisionNumber: current.revisionNumber + 2 });
  });

  it('creates a customer with POST, then deletes it after a confirmation', async () => {
    await logIn();
    await listed();
    await page.getByRole('link', { name: 'New customer' }).click();
    await page.waitForFunction(() => document.querySelector('.customer-screen')?.getAttribute('data-loaded') === 'new');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('New customer');
    expect(await page.getByRole('button', { name: 'Delete the customer…' }).isVisible()).to.equal(false);
    await layout('customer-new');

    const territory = territories.filter((t) => t.isActive)[2];
    await page.getByLabel('Name').fill('Browser Bikes');
    await page.getByLabel('Account number').fill('10-4030-BROWSE');
    await page.getByLabel('Territory').selectOption({ label: territory.text });
    await page.getByRole('button', { name: 'Create the customer' }).click();
    await waitForStatus(/^Customer created/);
    expect(writes).to.have.length(1);
    expect(writes[0]).to.deep.equal({ method: 'POST', contentType: 'application/json', body: { name: 'Browser Bikes', accountNumber: '10-4030-BROWSE', territoryId: territory.id } });
    const id = Number((await page.evaluate(() => location.hash)).replace('#/customers/', ''));
    expect(await apiCustomer(id)).to.deep.include({ name: 'Browser Bikes', accountNumber: '10-4030-BROWSE', territoryId: territory.id, revisionNumber: 1 });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Customer Browser Bikes');
    expect(await page.locator('[data-fact="customerId"]').textContent()).to.equal(String(id));

    // Delete: a confirmation first; Keep closes it and deletes nothing.
    const dialog = page.getByRole('dialog', { name: 'Delete this customer?' });
    await page.getByRole('button', { name: 'Delete the customer…' }).click();
    await dialog.waitFor();
    expect(await dialog.textContent()).to.include(`Browser Bikes (customer number ${id}) will be deleted. It can be restored from the deleted customers.`);
    expect(await page.evaluate(() => document.activeElement?.id), 'the safe choice has focus').to.equal('delete-cancel');
    await layout('customer-delete-confirm');
    await page.getByRole('button', { name: 'Keep the customer' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('customer-delete');
    expect(writes).to.have.length(1);

    await page.getByRole('button', { name: 'Delete the customer…' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.locator('#customer-deleted').waitFor();
    expect(writes[1]).to.deep.equal({ method: 'DELETE', contentType: undefined, body: undefined });
    expect(await page.locator('#customer-deleted').textContent()).to.equal(`Browser Bikes (customer number ${id}) was deleted.`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Customer deleted');
    expect((await server.call(`/customer/${id}`)).status).to.equal(404);
    await layout('customer-deleted');
    await page.getByRole('link', { name: '← Back to the customers' }).click();
    await listed();
    expect(await page.locator(`#results tr[data-customer-id="${id}"]`).count()).to.equal(0);
  });

  it('refuses to delete a customer with orders, with a clear message, and keeps it', async () => {
    const id = await customerWithOrders();
    const before = await apiCustomer(id);
    await logIn(`#/customers/${id}`);
    await customerShown(id);

    // Escape dismisses the confirmation.
    await page.getByRole('button', { name: 'Delete the customer…' }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(writes).to.deep.equal([]);

    await page.getByRole('button', { name: 'Delete the customer…' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    const refused = page.locator('#delete-refused');
    await refused.waitFor();
    const reply = await server.call(`/customer/${id}`, { method: 'DELETE' });
    expect(reply.status).to.equal(409);
    expect(reply.body.messages[0].code).to.equal('Entity_InUse');
    expect(await refused.getAttribute('role')).to.equal('alert');
    expect(await refused.textContent()).to.equal(`The customer was not deleted: sales orders still refer to it.${reply.body.messages[0].message}`);
    expect(await page.evaluate(() => document.activeElement?.id), 'focus on the message').to.equal('delete-refused');
    expect(await page.getByRole('dialog').isVisible()).to.equal(false);
    expect(await apiCustomer(id)).to.deep.equal(before);
    // The form is still there and usable.
    expect(await page.getByLabel('Name').inputValue()).to.equal(before.name);
    await layout('customer-in-use');
  });

  it('links a sales order to its customer, and the header moves between orders and customers', async () => {
    const order = (await server.call('/sales-order?take=1&sort[0].fieldName=totalDue&sort[0].sortDirection=Descending')).body.result[0];
    await logIn(`#/orders/${order.salesOrderId}`);
    await page.waitForFunction(() => !!document.querySelector('.order-screen[data-loaded] #order-form'));
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'Orders' }).getAttribute('aria-current')).to.equal('page');
    expect(await nav.getByRole('link', { name: 'Customers' }).getAttribute('aria-current')).to.equal(null);

    const link = page.locator('[data-fact="customerName"] a');
    expect(await link.textContent()).to.equal(order.customerName);
    expect(await link.getAttribute('href')).to.equal(`#/customers/${order.customerId}`);
    await link.click();
    await customerShown(order.customerId);
    expect(await page.getByLabel('Name').inputValue()).to.equal(order.customerName);
    expect(await nav.getByRole('link', { name: 'Customers' }).getAttribute('aria-current')).to.equal('page');
    expect(await page.evaluate(() => document.activeElement?.id), 'focus on the new screen’s heading').to.equal('customer-heading');

    await nav.getByRole('link', { name: 'Customers' }).click();
    await listed();
    expect(await page.evaluate(() => location.hash)).to.equal('#/customers');
    await nav.getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sales orders' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Orders' }).getAttribute('aria-current')).to.equal('page');
    await page.goBack();
    await listed();
  });

  it('keeps unsaved changes to a customer over the end of the session and a new login', async () => {
    await logIn();
    await listed();
    const id = (await rows())[4].id;
    const before = await apiCustomer(id);
    await page.goto(`${appUrl}#/customers/${id}`);
    await customerShown(id);
    await page.getByLabel('Account number').fill('KEPT-1');

    const cookie = (await context.cookies()).find((c) => c.name === 'restlayer.sid')!;
    await server.infrastructure.cookieSessions.destroy(cookie.value);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in to restlayer orders' }).waitFor();
    expect((await page.locator('#session-notice').textContent())!.trim()).to.equal(EXPIRED_TEXT);
    expect(await page.evaluate(() => location.hash)).to.equal(`#/customers/${id}`);

    await page.getByLabel('User name').fill(USER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await customerShown(id);
    expect(await page.getByLabel('Account number').inputValue()).to.equal('KEPT-1');
    expect(await statusText()).to.match(/unsaved changes were kept/);
    await layout('customer-after-relogin');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await waitForStatus(/^Changes saved/);
    // The refused save and the saved one: only the account number, with the revision it was loaded with.
    expect(writes.map((w) => w.body)).to.deep.equal([{ revisionNumber: before.revisionNumber, accountNumber: 'KEPT-1' }, { revisionNumber: before.revisionNumber, accountNumber: 'KEPT-1' }]);
    expect(await apiCustomer(id)).to.deep.include({ accountNumber: 'KEPT-1', name: before.name, revisionNumber: before.revisionNumber + 1 });
  });

  it('can be used with the keyboard alone: header, filters, a customer, save and delete confirmation', async () => {
    await logIn('#/orders');
    await page.getByRole('heading', { level: 1, name: 'Sales orders' }).waitFor();
    const tabTo = async (done: string, { max = 60, back = false } = {}) => {
      for (let i = 0; i < max; i++) {
        await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
        const focus = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          const style = getComputedStyle(el);
          return { body: el === document.body, html: el.outerHTML.slice(0, 80), outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
        });
        if (focus.body) continue;
        expect(focus.outline, `focus visible on ${focus.html}`).to.not.equal('none');
        expect(focus.width, `focus outline on ${focus.html}`).to.be.at.least(2);
        if (await page.evaluate((selector) => document.activeElement?.matches(selector) ?? false, done)) return;
      }
      expect.fail(`Tab never reached ${done}`);
    };

    await tabTo('#main-nav a[data-section="customers"]');
    await page.keyboard.press('Enter');
    await listed();
    await screenshot(page, 'keyboard-focus-customers');
    const all = await apiList('');
    const target = all.items[5];
    await tabTo('#filter-name');
    await page.keyboard.type(target.name);
    await page.keyboard.press('Enter');
    await listed();
    expect((await rows()).map((r) => r.id)).to.include(target.customerId);

    await tabTo(`#results tr[data-customer-id="${target.customerId}"] a`);
    await page.keyboard.press('Enter');
    await customerShown(target.customerId);
    await tabTo('#customer-account');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('KEYS-1');
    await tabTo('#customer-save');
    await screenshot(page, 'keyboard-focus-customer-save');
    await page.keyboard.press('Enter');
    await waitForStatus(/^Changes saved/);
    expect((await apiCustomer(target.customerId)).accountNumber).to.equal('KEYS-1');

    // The delete confirmation by keyboard: Space opens it, focus starts on Keep, Tab stays inside, Enter keeps.
    await tabTo('#customer-delete');
    await page.keyboard.press('Space');
    await page.getByRole('dialog').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('delete-cancel');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('delete-confirm');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('customer-delete');
    expect(writes.filter((w) => w.method === 'DELETE')).to.deep.equal([]);
  });
});
