import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, requireChromium, screenshot } from '../support/browser.js';
import type { TestServer } from '../support/server.js';
import { closeContext, fillLogIn, startWebApp } from '../support/web-app.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const USER = 'pia';
const PASSWORD = 'pia-password-1';
const DISPLAY_NAME = 'Pia Polish';
const ORDER = 43659;

/** What the page reports, every line: console messages of any level (failed requests included) and HTTP statuses. */
interface PageRecord {
  console: string[];
  statuses: { url: string; status: number }[];
}

function record(page: Page): PageRecord {
  const seen: PageRecord = { console: [], statuses: [] };
  page.on('console', (msg) => seen.console.push(`${msg.type()}: ${msg.text()}`));
  page.on('pageerror', (err) => seen.console.push(`pageerror: ${err.message}`));
  page.on('response', (res) => seen.statuses.push({ url: new URL(res.url()).pathname, status: res.status() }));
  return seen;
}

/** The day as the app shows dates (web/src/format.ts): `15 Nov 2024`. */
const shownDay = (iso: string) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(iso));

/**
 * The browser app's first impressions and small print: a first visit without a session is quiet (no 401 in the
 * console), a tab opened on a deep link names the user, messages about a field use its label and the page's dates,
 * the conflict box says it once, and on a phone the filters fold away so the list comes first.
 */
describeOneStore('web app polish in Chromium', WHY_ONE_STORE.web, function () {
  this.timeout(90_000);
  let server: TestServer;
  let browser: Browser;
  let appUrl: string;
  let context: BrowserContext;
  let page: Page;
  let seen: PageRecord;

  before(async function () {
    requireChromium(this, 'the browser tests of the web app');
    ({ server, appUrl } = await startWebApp(USER, PASSWORD, DISPLAY_NAME));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const newPage = async (width = 1280) => {
    context = await browser.newContext({ viewport: { width, height: 800 } });
    page = await context.newPage();
    seen = record(page);
  };
  afterEach(async function () {
    if (!context) return;
    await closeContext(this, page, context, 'polish-failed-');
    context = undefined as unknown as BrowserContext;
  });

  const logIn = () => fillLogIn(page, USER, PASSWORD);

  const listed = () => page.waitForFunction(() => document.querySelector('#results')?.getAttribute('data-loaded') === location.hash);
  const orderShown = (id: number) => page.waitForFunction((wanted) => location.hash === `#/orders/${wanted}` && !!document.querySelector('.order-screen[data-loaded] #order-form'), id);

  /** A fresh page opened on the order, after the login that deep link asks for. */
  async function onOrder(): Promise<void> {
    await newPage();
    await page.goto(`${appUrl}#/orders/${ORDER}`);
    await logIn();
    await orderShown(ORDER);
  }

  it('a first visit without a session shows the login form and logs nothing: no 401, no console line', async () => {
    await newPage();
    await page.goto(`${appUrl}#/orders/${ORDER}`);
    await page.getByRole('heading', { level: 1, name: 'Log in to restlayer orders' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(seen.statuses.filter((s) => s.status >= 400), 'failed requests').to.deep.equal([]);
    expect(seen.console, 'console messages').to.deep.equal([]);
    expect(await page.locator('#session-notice').count(), 'no "session expired" on a first visit').to.equal(0);
    // After the login the deep link is shown.
    await logIn();
    await orderShown(ORDER);
    expect(seen.statuses.filter((s) => s.status >= 400), 'failed requests').to.deep.equal([]);
  });

  it('a tab opened on a deep link shows who is logged in', async () => {
    await newPage();
    await page.goto(appUrl);
    await logIn();
    await listed();
    // A new tab of the same browser: the cookie is there, the first tab's sessionStorage is not.
    const tab = await context.newPage();
    const tabSeen = record(tab);
    await tab.goto(`${appUrl}#/orders/${ORDER}`);
    await tab.waitForFunction((wanted) => !!document.querySelector(`.order-screen[data-loaded] #order-form`) && location.hash === `#/orders/${wanted}`, ORDER);
    expect(await tab.locator('#user-name').textContent()).to.equal(`Logged in as ${DISPLAY_NAME}`);
    expect(await tab.locator('#account').isVisible()).to.equal(true);
    expect(tabSeen.statuses.filter((s) => s.status >= 400)).to.deep.equal([]);
  });

  it('a message about a field names it by its label and writes dates as the page does', async () => {
    await onOrder();
    const order = (await server.call(`/sales-order/${ORDER}`)).body.result as { orderDate: string };
    await page.getByLabel('Ship date').fill('2000-01-01');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const error = page.locator('#order-ship-error');
    await error.waitFor();
    const text = (await error.textContent())!;
    expect(text).to.equal(`Ship date cannot be before the order date (${shownDay(order.orderDate)}).`);
    expect(text).to.not.match(/shipDate|\d{4}-\d{2}-\d{2}/);
  });

  it('the conflict box says what happened once, in plain words', async () => {
    await onOrder();
    const current = (await server.call(`/sales-order/${ORDER}`)).body.result as { revisionNumber: number };
    const behind = await server.call(`/sales-order/${ORDER}`, { method: 'PATCH', body: { comment: 'Changed behind the page', revisionNumber: current.revisionNumber } });
    expect(behind.status, behind.text).to.equal(200);
    await page.getByLabel('Comment').fill('My change');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const conflict = page.locator('#conflict');
    await conflict.waitFor();
    const text = (await conflict.innerText()).replace(/\s+/g, ' ');
    expect(await conflict.locator('p').count(), 'one sentence group under the heading').to.equal(1);
    expect(text.match(/not saved/g), `"${text}"`).to.have.length(1);
    expect(text.match(/changed|saved this order/g), `"${text}"`).to.have.length(2);
    expect(text, 'no wire words').to.not.match(/revision|concurrency|Entity_|\b409\b/i);
  });

  for (const [width, folded] of [[375, true], [1280, false]] as const) {
    it(`at ${width} px the filters are ${folded ? 'folded away and the list comes first' : 'open beside the list'}`, async () => {
      await newPage(width);
      await page.goto(`${appUrl}#/orders`);
      await logIn();
      await listed();
      const fold = page.locator('details.filter-fold');
      expect(await fold.evaluate((d) => (d as HTMLDetailsElement).open)).to.equal(!folded);
      expect(await page.getByLabel('Status').isVisible()).to.equal(!folded);
      const firstRow = (await page.locator('#results tbody tr[data-order-id]').first().boundingBox())!;
      if (folded) {
        expect(firstRow.y, 'the first order is on the first screen').to.be.lessThan(800 - firstRow.height);
        await screenshot(page, `polish-orders-${width}`);
        // The filters are one tap away.
        await page.getByText('Filters', { exact: true }).click();
        expect(await page.getByLabel('Status').isVisible()).to.equal(true);
      }
      await page.goto(`${appUrl}#/customers`);
      await page.waitForFunction(() => !!document.querySelector('.customers-screen details.filter-fold'));
      expect(await page.locator('details.filter-fold').evaluate((d) => (d as HTMLDetailsElement).open)).to.equal(!folded);
    });
  }
});
