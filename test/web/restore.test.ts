import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { withErrorScope } from 'restlayer';
import { type PageProblems, launchChromium, requireChromium, screenshot, watchPage } from '../support/browser.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { addUser } from '../support/users.js';
import { closeContext, fillLogIn } from '../support/web-app.js';
import { describeStores } from '../support/stores.js';

const PASSWORD = 'restore-password-1';
/** A Clerk holds customer.delete and sales-order.delete; a SalesPerson and a Viewer hold neither (contract part 10). */
const CLERK = 'cleo';
const SALES = 'sam';
const VIEWER = 'vera';
const SALES_PERSON = 279;

interface ApiMessage { code: string; message: string; property?: string }

/**
 * The deleted view of the customer and order lists (contract part 13) in Chromium against a real server: a holder of
 * the delete permission deletes, finds the record under the Deleted filter (kept in the hash), restores it and sees
 * it back in the usual list; a refused restore shows the server's message; the other roles are offered neither. And
 * the session's tenant in the header (part 12), from a second server with tenancy on.
 */
describeStores('web app: deleted records and their restore, and the tenant in the header, in Chromium', function () {
  this.timeout(120_000);
  let server: TestServer;
  let browser: Browser;
  let appUrl: string;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let activeProduct: number;
  /** Makes each test's names and account numbers its own (the stores are shared by the tests of one run). */
  const stamp = Date.now().toString(36).toUpperCase();

  before(async function () {
    requireChromium(this, 'the browser tests of the deleted view');
    server = await startTestServer({ config: { Web: { Enabled: true }, RestAPI: { Path: '/api' }, Authentication: { PasswordHashCost: 10 } } });
    await addUser(server, CLERK, PASSWORD, ['Clerk'], 'Cleo Clerk');
    await addUser(server, SALES, PASSWORD, ['SalesPerson'], 'Sam Sales');
    await addUser(server, VIEWER, PASSWORD, ['Viewer'], 'Vera Viewer');
    const set = await withErrorScope(() => server.services.users.setAttribute(SALES, 'salesPersonId', String(SALES_PERSON)));
    expect(set.messages).to.deep.equal([]);
    appUrl = `${new URL(server.url).origin}/`;
    const products = await server.call('/lookup-table/product');
    expect(products.status, products.text).to.equal(200);
    activeProduct = (products.body.result.data as { id: number; isActive: boolean }[]).find((p) => p.isActive)!.id;
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
    await closeContext(this, page, context, 'restore-failed-');
    context = undefined as unknown as BrowserContext;
    expect(problems.list, 'errors or CSP violations in the page').to.deep.equal([]);
  });

  // ---- helpers -------------------------------------------------------------------------------------------------

  async function logInAt(hash: string, user: string, width = 1280): Promise<void> {
    await newPage(width);
    await page.goto(`${appUrl}${hash}`);
    await fillLogIn(page, user, PASSWORD);
    await page.waitForFunction((wanted) => location.hash === wanted, hash);
  }

  /** Waits until the list shows what the URL hash asks for. */
  async function listed(): Promise<void> {
    await page.waitForFunction(() => {
      const results = document.querySelector('#results');
      return results?.getAttribute('aria-busy') === 'false' && results.getAttribute('data-loaded') === location.hash;
    });
  }

  const hash = () => page.evaluate(() => location.hash);
  const focusedId = () => page.evaluate(() => document.activeElement?.id);
  const rowIds = (attribute: string) => page.$$eval(`#results tbody tr[${attribute}]`, (trs, a) => trs.map((tr) => Number(tr.getAttribute(a))), attribute);

  async function newCustomer(name: string, accountNumber?: string): Promise<number> {
    const reply = await server.call('/customer', { method: 'POST', body: { name, ...(accountNumber ? { accountNumber } : {}) } });
    expect(reply.status, reply.text).to.equal(201);
    return reply.body.result.customerId as number;
  }

  async function newOrder(customerId: number): Promise<{ salesOrderId: number; salesOrderNumber: string }> {
    const reply = await server.call('/sales-order', {
      method: 'POST',
      body: { customerId, status: 1, onlineOrderFlag: true, dueDate: '2030-01-15T00:00:00.000Z', lines: [{ productId: activeProduct, orderQty: 1 }] },
    });
    expect(reply.status, reply.text).to.equal(201);
    const read = await server.call(`/sales-order/${reply.body.result.salesOrderId}`);
    expect(read.status, read.text).to.equal(200);
    return read.body.result;
  }

  async function apiDelete(path: string): Promise<void> {
    const reply = await server.call(path, { method: 'DELETE' });
    expect(reply.status, reply.text).to.be.oneOf([200, 204]);
  }

  /** The messages a restore through the API answers (only called where it is refused, so it changes nothing). */
  async function refusal(path: string, status: number): Promise<ApiMessage[]> {
    const reply = await server.call(`${path}/restore`, { method: 'POST', body: {} });
    expect(reply.status, reply.text).to.equal(status);
    return reply.body.messages as ApiMessage[];
  }

  /** Ticks or clears the Deleted filter and applies the filters, as a user does. */
  async function showDeleted(label: string, wanted: boolean): Promise<void> {
    await page.getByRole('checkbox', { name: label }).setChecked(wanted);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForFunction((on) => location.hash.includes('deleted=true') === on, wanted);
    await listed();
  }

  /** No sideways scrolling at this width, every visible control labelled; a PNG goes to test-results/screenshots. */
  async function fits(name: string): Promise<void> {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${name}: the page scrolls sideways`).to.be.at.most(0);
    const unlabelled = await page.$$eval('input, select, textarea, button', (controls) => controls
      .filter((c) => (c as HTMLInputElement).labels?.length === 0 && !c.getAttribute('aria-label') && !c.textContent?.trim() && (c as HTMLElement).offsetParent !== null)
      .map((c) => c.outerHTML));
    expect(unlabelled, `${name}: controls without a label`).to.deep.equal([]);
    await screenshot(page, name);
  }

  // ---- tests ---------------------------------------------------------------------------------------------------

  it('a Clerk deletes a customer, finds it under Deleted (kept in the address), restores it, and it is listed again', async () => {
    const name = `Restore Cycles ${stamp}`;
    const id = await newCustomer(name, `RC-${stamp}`);
    const list = `#/customers?name=${encodeURIComponent(name).replace(/%20/g, '+')}`;
    await logInAt(list, CLERK);
    await listed();
    expect(await rowIds('data-customer-id')).to.deep.equal([id]);
    const filter = page.getByRole('checkbox', { name: 'Deleted customers' });
    expect(await filter.isChecked()).to.equal(false);
    expect(await page.locator('#filter-deleted').getAttribute('aria-describedby')).to.equal('filter-deleted-hint');

    // Delete it on its page: the confirmation says it can be restored.
    await page.getByRole('link', { name, exact: true }).click();
    await page.waitForFunction(() => !!document.querySelector('.customer-screen[data-loaded]'));
    await page.getByRole('button', { name: 'Delete the customer…' }).click();
    expect(await page.locator('#delete-dialog-text').textContent()).to.equal(`${name} (customer number ${id}) will be deleted. It can be restored from the deleted customers.`);
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.locator('#customer-deleted').waitFor();
    await page.getByRole('link', { name: '← Back to the customers' }).click();
    await listed();
    expect(await rowIds('data-customer-id')).to.deep.equal([]);

    // The Deleted filter: in the hash, the heading and the summary say which list this is; the name is no link.
    await showDeleted('Deleted customers', true);
    expect(await hash()).to.equal(`${list}&deleted=true`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Deleted customers');
    expect(await page.locator('#list-summary').textContent()).to.equal('Deleted customers 1–1 of 1');
    expect(await rowIds('data-customer-id')).to.deep.equal([id]);
    expect(await page.locator(`#results tr[data-customer-id="${id}"] [data-field="name"]`).textContent()).to.equal(name);
    expect(await page.locator(`#results tr[data-customer-id="${id}"] a`).count(), 'a deleted customer cannot be opened').to.equal(0);
    expect((await server.call(`/customer?name=${encodeURIComponent(name)}&deleted=true`)).body.result.map((c: { customerId: number }) => c.customerId)).to.deep.equal([id]);

    // A reload keeps the view (the hash), its filter ticked.
    await page.reload();
    await listed();
    expect(await page.getByRole('checkbox', { name: 'Deleted customers' }).isChecked()).to.equal(true);
    expect(await rowIds('data-customer-id')).to.deep.equal([id]);
    await fits('restore-customers-deleted-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    await fits('restore-customers-deleted-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Restore: the row leaves the deleted list; what happened is said and takes focus, with a link to the customer.
    const restore = page.getByRole('button', { name: `Restore ${name} (customer number ${id})` });
    expect(await restore.textContent()).to.equal('Restore');
    await restore.click();
    await page.locator('#restored').waitFor();
    expect(await page.locator('#restored').textContent()).to.equal(`${name} (customer number ${id}) was restored. Open it.`);
    expect(await page.locator('#restored').getAttribute('role')).to.equal('status');
    expect(await focusedId()).to.equal('restored');
    await listed();
    expect(await rowIds('data-customer-id')).to.deep.equal([]);
    expect(await page.locator('#list-summary').textContent()).to.equal('No deleted customers match these filters.');
    expect((await server.call(`/customer/${id}`)).status).to.equal(200);

    // Back in the usual list.
    await showDeleted('Deleted customers', false);
    expect(await hash()).to.equal(list);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Customers');
    expect(await page.locator('#restored').count(), 'the notice goes with the view').to.equal(0);
    expect(await rowIds('data-customer-id')).to.deep.equal([id]);
    await page.getByRole('link', { name, exact: true }).click();
    await page.waitForFunction(() => !!document.querySelector('.customer-screen[data-loaded]'));
    expect(await hash()).to.equal(`#/customers/${id}`);
  });

  it('a restore whose account number was taken meanwhile shows the 409\'s message and keeps the row; it restores once free', async () => {
    const account = `RX-${stamp}`;
    const name = `Restore Conflict ${stamp}`;
    const first = await newCustomer(name, account);
    await apiDelete(`/customer/${first}`);
    const second = await newCustomer(`Account Taker ${stamp}`, account);
    const expected = await refusal(`/customer/${first}`, 409);
    expect(expected.map((m) => [m.code, m.property])).to.deep.equal([['Entity_Duplicate', 'accountNumber']]);

    const list = `#/customers?account=${account}&deleted=true`;
    await logInAt(list, CLERK);
    await listed();
    expect(await rowIds('data-customer-id')).to.deep.equal([first]);
    await page.getByRole('button', { name: `Restore ${name} (customer number ${first})` }).click();
    const refused = page.locator('#restore-refused');
    await refused.waitFor();
    expect(await refused.getAttribute('role')).to.equal('alert');
    expect(await refused.locator('.message-heading').textContent()).to.equal(`${name} (customer number ${first}) was not restored.`);
    expect(await refused.locator('li').allTextContents()).to.deep.equal(expected.map((m) => m.message));
    expect(await refused.locator('li').getAttribute('data-code')).to.equal('Entity_Duplicate');
    expect(await focusedId(), 'the refusal takes focus').to.equal('restore-refused');
    expect(await rowIds('data-customer-id'), 'still deleted').to.deep.equal([first]);
    expect((await server.call(`/customer/${first}`)).status).to.equal(404);
    await fits('restore-customer-refused-1280');

    // Once the other customer is gone the account number is free again: the same button restores it.
    await apiDelete(`/customer/${second}`);
    await page.getByRole('button', { name: `Restore ${name} (customer number ${first})` }).click();
    await page.locator('#restored').waitFor();
    expect(await page.locator('#restore-refused').count()).to.equal(0);
    await listed();
    expect(await rowIds('data-customer-id')).to.deep.equal([second]);
    expect((await server.call(`/customer/${first}`)).body.result.accountNumber).to.equal(account);
  });

  it('a Clerk deletes an order, restores it under Deleted (refused while its customer is deleted), and it is listed again', async () => {
    const customerName = `Order Keeper ${stamp}`;
    const customerId = await newCustomer(customerName);
    const order = await newOrder(customerId);
    await logInAt(`#/orders/${order.salesOrderId}`, CLERK);
    await page.waitForFunction(() => !!document.querySelector('.order-screen[data-loaded] #order-form'));
    await page.locator('#order-delete').click();
    expect(await page.locator('#delete-dialog-text').textContent()).to.equal(
      `Order ${order.salesOrderNumber} of ${customerName} will be deleted with its lines. It can be restored from the deleted orders.`);
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.locator('#order-deleted').waitFor();

    const list = `#/orders?q=${encodeURIComponent(customerName).replace(/%20/g, '+')}`;
    await page.evaluate((wanted) => { location.hash = wanted; }, list);
    await listed();
    expect(await rowIds('data-order-id')).to.deep.equal([]);
    await showDeleted('Deleted orders', true);
    expect(await hash()).to.equal(`${list}&deleted=true`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Deleted sales orders');
    expect(await page.locator('#list-summary').textContent()).to.equal('Deleted orders 1–1 of 1');
    expect(await rowIds('data-order-id')).to.deep.equal([order.salesOrderId]);
    expect(await page.locator(`#results tr[data-order-id="${order.salesOrderId}"] a`).count(), 'a deleted order cannot be opened').to.equal(0);
    await fits('restore-orders-deleted-1280');
    await page.setViewportSize({ width: 375, height: 800 });
    await fits('restore-orders-deleted-375');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Its customer deleted meanwhile (no order that is not deleted refers to it): the restore is refused as a create.
    await apiDelete(`/customer/${customerId}`);
    const expected = await refusal(`/sales-order/${order.salesOrderId}`, 400);
    const restore = page.getByRole('button', { name: `Restore Order ${order.salesOrderNumber} of ${customerName}` });
    await restore.click();
    const refused = page.locator('#restore-refused');
    await refused.waitFor();
    expect(await refused.locator('.message-heading').textContent()).to.equal(`Order ${order.salesOrderNumber} of ${customerName} was not restored.`);
    expect(await refused.locator('li').allTextContents()).to.deep.equal(expected.map((m) => m.message));
    expect(await focusedId()).to.equal('restore-refused');
    expect(await rowIds('data-order-id')).to.deep.equal([order.salesOrderId]);

    // The customer restored (through the API), the order restores and is in the usual list again.
    expect((await server.call(`/customer/${customerId}/restore`, { method: 'POST', body: {} })).status).to.equal(200);
    await restore.click();
    await page.locator('#restored').waitFor();
    expect(await page.locator('#restored').textContent()).to.equal(`Order ${order.salesOrderNumber} of ${customerName} was restored. Open it.`);
    expect(await focusedId()).to.equal('restored');
    await listed();
    expect(await rowIds('data-order-id')).to.deep.equal([]);
    await showDeleted('Deleted orders', false);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal('Sales orders');
    expect(await rowIds('data-order-id')).to.deep.equal([order.salesOrderId]);
    await page.getByRole('link', { name: order.salesOrderNumber, exact: true }).click();
    await page.waitForFunction(() => !!document.querySelector('.order-screen[data-loaded] #order-form'));
  });

  for (const [user, role] of [[SALES, 'SalesPerson'], [VIEWER, 'Viewer']] as const) {
    it(`offers a ${role} (no delete permission) no Deleted filter on either list; a typed deleted=true shows the server's refusal`, async () => {
      for (const [listHash, label] of [['#/customers', 'Deleted customers'], ['#/orders', 'Deleted orders']] as const) {
        if (listHash === '#/customers') await logInAt(listHash, user);
        else await page.evaluate((wanted) => { location.hash = wanted; }, listHash);
        await listed();
        expect(await page.getByRole('button', { name: 'Apply filters' }).count(), 'the filters are there').to.equal(1);
        expect(await page.getByRole('checkbox', { name: label }).count(), `${listHash}: no ${label} filter`).to.equal(0);
        expect(await page.locator('#filter-deleted').count()).to.equal(0);
        expect(await page.locator('button.restore').count()).to.equal(0);
      }
      // Only by typing the address: the server refuses the list (403) and the page says so; no row, no Restore.
      await page.evaluate(() => { location.hash = '#/customers?deleted=true'; });
      await listed();
      expect(await page.locator('.list-messages [role="alert"]').textContent()).to.include('The customers could not be listed.');
      expect(await page.locator('#results tbody tr[data-customer-id]').count()).to.equal(0);
      expect(await page.locator('button.restore').count()).to.equal(0);
      expect(await page.locator('#filter-deleted').count()).to.equal(0);
    });
  }

  it('shows no tenant in the header when the session has none (this server runs without tenancy)', async () => {
    const session = await server.call('/auth/session');
    expect(session.status, session.text).to.equal(200);
    expect(session.body.result, 'no tenantId without Tenancy:Enabled').to.not.have.property('tenantId');
    await logInAt('#/orders', CLERK);
    await listed();
    expect(await page.locator('#user-name').textContent()).to.equal('Logged in as Cleo Clerk');
    expect(await page.locator('#user-tenant').isHidden()).to.equal(true);
    expect(await page.locator('#user-tenant').textContent()).to.equal('');
    await page.reload();
    await listed();
    expect(await page.locator('#user-name').textContent()).to.equal('Logged in as Cleo Clerk');
    expect(await page.locator('#user-tenant').isHidden()).to.equal(true);
  });

  it('shows the session\'s tenant beside the user name on a server with tenancy on, after a reload too, and none once logged out', async () => {
    // A server of its own with Tenancy:Enabled, and a user whose attribute tenantId names theirs (contract part 12).
    const tenancy = await startTestServer({
      config: { Web: { Enabled: true }, RestAPI: { Path: '/api' }, Authentication: { PasswordHashCost: 10 }, Tenancy: { Enabled: true } },
    });
    try {
      await addUser(tenancy, 'tina', PASSWORD, ['Clerk'], 'Tina Tenant');
      const set = await withErrorScope(() => tenancy.services.users.setAttribute('tina', 'tenantId', 'acme'));
      expect(set.messages).to.deep.equal([]);
      await newPage();
      await page.goto(`${new URL(tenancy.url).origin}/#/customers`);
      await fillLogIn(page, 'tina', PASSWORD);
      await listed();
      const tenant = page.locator('#user-tenant');
      expect(await tenant.isVisible()).to.equal(true);
      // Seen as `acme`; read as `Tenant: acme` (the words before it are for screen readers only).
      expect(await tenant.textContent()).to.equal('Tenant: acme');
      expect(await tenant.locator('.visually-hidden').textContent()).to.equal('Tenant: ');
      expect(await tenant.locator('.visually-hidden').evaluate((e) => e.getBoundingClientRect().width)).to.be.at.most(1);
      expect(await page.locator('#user-name').textContent()).to.equal('Logged in as Tina Tenant');
      // Resumed from GET /auth/session after a reload.
      await page.reload();
      await listed();
      expect(await tenant.textContent()).to.equal('Tenant: acme');
      await fits('restore-header-tenant-1280');
      await page.setViewportSize({ width: 375, height: 800 });
      await fits('restore-header-tenant-375');
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Log in to restlayer orders' }).waitFor();
      expect(await tenant.isHidden()).to.equal(true);
      expect(await tenant.textContent()).to.equal('');
    } finally {
      await tenancy.stop();
    }
  });
});
