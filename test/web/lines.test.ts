import { expect } from 'chai';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { type PageProblems, launchChromium, requireChromium, screenshot, watchPage } from '../support/browser.js';
import type { TestServer } from '../support/server.js';
import { closeContext, fillLogIn, startWebApp } from '../support/web-app.js';
import { describeStores } from '../support/stores.js';

const USER = 'lena';
const PASSWORD = 'lena-password-1';
const SAMPLE_ORDER = 43659;

interface Line {
  salesOrderDetailId: number;
  productId: number;
  productName: string;
  orderQty: number;
  unitPrice: number;
  unitPriceDiscount: number;
  lineTotal: number;
}

interface Order {
  revisionNumber: number;
  subTotal: number;
  taxAmt: number;
  freight: number;
  totalDue: number;
  comment?: string;
  modifiedDate: string;
  lines: Line[];
}

interface Product {
  id: number;
  text: string;
  isActive: boolean;
  attributes: { listPrice: number; productNumber: string };
}

/** Amounts as the app shows them (web/src/format.ts): dollars with 2 to 4 decimals, exactly as served. */
/** A moment as the app shows it (web/src/format.ts showStamp): `25 Nov 2026, 21:50 UTC`. */
const shownStamp = (iso: string) => `${new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC`;
const shownMoney = (value: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(value);

/**
 * The order screen's lines editor, driven in Chromium against a real server: it shows the lines the API answers, and
 * every write's totals and revision on screen are the ones the API then reads back.
 */
describeStores('web app: order lines in Chromium', function () {
  this.timeout(90_000);
  let server: TestServer;
  let browser: Browser;
  let appUrl: string;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let products: Product[];

  before(async function () {
    requireChromium(this, 'the browser tests of the lines editor');
    ({ server, appUrl } = await startWebApp(USER, PASSWORD, 'Lena Lines'));
    const reply = await server.call('/lookup-table/product');
    expect(reply.status, reply.text).to.equal(200);
    products = reply.body.result.data as Product[];
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
    await closeContext(this, page, context, 'lines-failed-');
    context = undefined as unknown as BrowserContext;
    expect(problems.list, 'errors or CSP violations in the page').to.deep.equal([]);
  });

  // ---- helpers -------------------------------------------------------------------------------------------------

  const active = () => products.filter((p) => p.isActive);

  async function apiOrder(id: number): Promise<Order> {
    const reply = await server.call(`/sales-order/${id}`);
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.result as Order;
  }

  /** A new order of its own for a test, with lines of the first active products (quantity, discount). */
  async function orderWith(lines: [number, number][]): Promise<number> {
    const reply = await server.call('/sales-order', {
      method: 'POST',
      body: {
        customerId: 11000, status: 1, onlineOrderFlag: true, dueDate: '2030-01-15T00:00:00.000Z',
        lines: lines.map(([orderQty, unitPriceDiscount], i) => ({ productId: active()[i].id, orderQty, unitPriceDiscount })),
      },
    });
    expect(reply.status, reply.text).to.equal(201);
    return reply.body.result.salesOrderId as number;
  }

  /** Logs in on a deep link to the order and waits for its lines. */
  async function openOrder(id: number, width = 1280): Promise<void> {
    await newPage(width);
    await page.goto(`${appUrl}#/orders/${id}`);
    await fillLogIn(page, USER, PASSWORD);
    await page.waitForFunction((wanted) => location.hash === `#/orders/${wanted}` && !!document.querySelector('.order-screen[data-loaded] #lines tbody tr'), id);
  }

  async function rows(): Promise<{ id: number; product: string; qty: string; price: string; discount: string; total: string }[]> {
    return page.$$eval('#lines tbody tr[data-line-id]', (trs) => trs.map((tr) => {
      const cell = (name: string) => tr.querySelector(`[data-field="${name}"]`)!;
      return {
        id: Number((tr as HTMLElement).dataset.lineId),
        product: cell('productName').textContent!.trim(),
        qty: cell('orderQty').querySelector('input')!.value,
        price: cell('unitPrice').textContent!.trim(),
        discount: cell('unitPriceDiscount').querySelector('input')!.value,
        total: cell('lineTotal').textContent!.trim(),
      };
    }));
  }

  /** The rows the page should show for lines the API answers. */
  const expectedRows = (lines: Line[]) => lines.map((l) => ({
    id: l.salesOrderDetailId,
    product: l.productName,
    qty: String(l.orderQty),
    price: shownMoney(l.unitPrice),
    // Percent, from the fraction's digits (0.1 → 10, 0.025 → 2.5).
    discount: l.unitPriceDiscount ? String(Number((l.unitPriceDiscount * 100).toFixed(2))) : '',
    total: shownMoney(l.lineTotal),
  }));

  const fact = (name: string) => page.locator(`[data-fact="${name}"]`).textContent();

  /** The facts show the order's totals and revision as the API reads them now. */
  async function factsMatch(id: number): Promise<Order> {
    const order = await apiOrder(id);
    expect(await fact('subTotal')).to.equal(shownMoney(order.subTotal));
    expect(await fact('totalDue')).to.equal(shownMoney(order.totalDue));
    expect(await fact('revisionNumber')).to.equal(String(order.revisionNumber));
    return order;
  }

  const statusSays = (pattern: RegExp) => page.waitForFunction((source) => new RegExp(source).test(document.querySelector('#lines-status')?.textContent ?? ''), pattern.source);

  /** No sideways scrolling of the page, nor of the lines table inside it; every visible control labelled. */
  async function fits(name: string): Promise<void> {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${name}: the page scrolls sideways`).to.be.at.most(0);
    const inner = await page.$eval('.lines-wrap', (wrap) => wrap.scrollWidth - wrap.clientWidth);
    expect(inner, `${name}: the lines table scrolls sideways`).to.be.at.most(0);
    const unlabelled = await page.$$eval('input, select, textarea', (controls) => controls
      .filter((c) => (c as HTMLInputElement).labels?.length === 0 && !c.getAttribute('aria-label') && (c as HTMLElement).offsetParent !== null)
      .map((c) => c.outerHTML));
    expect(unlabelled, `${name}: controls without a label`).to.deep.equal([]);
    await screenshot(page, name);
  }

  // ---- tests ---------------------------------------------------------------------------------------------------

  it('shows the lines of a sample order, with the order\'s subtotal and total due', async () => {
    await openOrder(SAMPLE_ORDER);
    const order = await apiOrder(SAMPLE_ORDER);
    expect(order.lines.length).to.be.greaterThan(0);
    expect(await rows()).to.deep.equal(expectedRows(order.lines));
    await factsMatch(SAMPLE_ORDER);
    expect(await fact('taxAmt')).to.equal(shownMoney(order.taxAmt));
    expect(await fact('freight')).to.equal(shownMoney(order.freight));
    // Each line's fields are named by what they are and which product (a screen reader reads one row at a time).
    const first = order.lines[0];
    expect(await page.getByLabel(`Quantity of ${first.productName}`, { exact: true }).inputValue()).to.equal(String(first.orderQty));
    // New lines offer active products only.
    const offered = await page.$$eval('#line-product option', (os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(offered).to.deep.equal(active().map((p) => String(p.id)));
    await fits('lines-sample-1280');
  });

  it('adds a line: the row is the stored line and the totals are the server\'s answer', async () => {
    const id = await orderWith([[1, 0]]);
    await openOrder(id);
    const before = await apiOrder(id);
    const product = active()[3];
    await page.locator('#line-product').selectOption(String(product.id));
    await page.locator('#line-qty').fill('3');
    await page.locator('#line-discount').fill('12.5');
    await page.getByRole('button', { name: 'Add line' }).click();
    await statusSays(/^Line added/);

    const after = await factsMatch(id);
    expect(after.revisionNumber).to.equal(before.revisionNumber + 1);
    expect(after.lines).to.have.length(2);
    const added = after.lines[1];
    expect(added).to.deep.include({ productId: product.id, orderQty: 3, unitPriceDiscount: 0.125, unitPrice: product.attributes.listPrice });
    expect(await rows()).to.deep.equal(expectedRows(after.lines));
    expect(await page.locator('#lines-status').textContent()).to.contain(`total due ${shownMoney(after.totalDue)}`);
    // The modified date, which the write's answer does not carry, is read again.
    await page.waitForFunction((text) => document.querySelector('[data-fact="modifiedDate"]')?.textContent === text, shownStamp(after.modifiedDate));
    // The form is ready for the next line, and the header form saves over the new revision (no conflict).
    expect(await page.locator('#line-product').inputValue()).to.equal('');
    await page.getByLabel('Comment').fill('Saved after adding a line');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForFunction(() => /^Changes saved/.test(document.querySelector('#save-status')?.textContent ?? ''));
    expect((await apiOrder(id)).comment).to.equal('Saved after adding a line');
  });

  it('changes a quantity (Enter saves, Escape undoes) and shows the new line total and totals', async () => {
    const id = await orderWith([[2, 0], [1, 0.1]]);
    await openOrder(id);
    const [first] = (await apiOrder(id)).lines;
    const qty = page.locator(`#line-${first.salesOrderDetailId}-qty`);

    await qty.fill('9');
    await qty.press('Escape');
    expect(await qty.inputValue(), 'Escape puts back the saved quantity').to.equal('2');
    await statusSays(/undone/);

    await qty.fill('7');
    await qty.press('Enter');
    await statusSays(/^Line saved/);
    const after = await factsMatch(id);
    expect(after.lines[0].orderQty).to.equal(7);
    expect(await rows()).to.deep.equal(expectedRows(after.lines));

    // A discount, with the button this time.
    const second = after.lines[1];
    await page.locator(`#line-${second.salesOrderDetailId}-discount`).fill('25');
    await page.getByRole('button', { name: `Save line ${second.productName}` }).click();
    await page.waitForFunction((v) => document.querySelector('#lines-status')?.textContent?.includes(`total due`) && document.querySelector('[data-fact="revisionNumber"]')?.textContent === v, String(after.revisionNumber + 1));
    const last = await factsMatch(id);
    expect(last.lines[1].unitPriceDiscount).to.equal(0.25);
    expect(await rows()).to.deep.equal(expectedRows(last.lines));
  });

  it('refuses a quantity that is not 1 to 32767 next to its field, and sends nothing', async () => {
    const id = await orderWith([[2, 0]]);
    await openOrder(id);
    const before = await apiOrder(id);
    const lineId = before.lines[0].salesOrderDetailId;
    await page.locator(`#line-${lineId}-qty`).fill('0');
    await page.locator(`#line-${lineId}-qty`).press('Enter');
    const error = page.locator(`#line-${lineId}-qty-error`);
    await error.waitFor();
    expect(await error.textContent()).to.equal('Enter a whole number of items from 1 to 32767.');
    expect(await page.locator(`#line-${lineId}-qty`).getAttribute('aria-invalid')).to.equal('true');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal(`line-${lineId}-qty`);
    expect((await apiOrder(id)).revisionNumber).to.equal(before.revisionNumber);
    await page.getByRole('button', { name: 'Add line' }).click();
    expect(await page.locator('#line-product-error').textContent()).to.equal('Choose a product.');
  });

  it('puts the server\'s own messages under the line\'s field, in the form\'s words, and writes nothing', async () => {
    const id = await orderWith([[2, 0]]);
    await openOrder(id);
    const before = await apiOrder(id);
    const line = before.lines[0];
    // What the form does not check itself: the request is changed on its way, so the server refuses it.
    const changeBody = (change: Record<string, unknown>) => async (route: Route) => {
      await route.continue({ postData: JSON.stringify({ ...JSON.parse(route.request().postData()!), ...change }) });
    };
    await page.route(`**/api/sales-order/${id}/detail/${line.salesOrderDetailId}`, changeBody({ orderQty: 40000 }));
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).fill('3');
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'PATCH'), page.locator(`#line-${line.salesOrderDetailId}-qty`).press('Enter')]);
    expect(answer.status()).to.equal(400);
    const [message] = (await answer.json()).messages as { property: string; message: string }[];
    expect(message.property).to.equal('orderQty');
    const error = page.locator(`#line-${line.salesOrderDetailId}-qty-error`);
    await error.waitFor();
    expect(await error.textContent()).to.equal(message.message.replace(/^orderQty\b/, `Quantity of ${line.productName}`));
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal(`line-${line.salesOrderDetailId}-qty`);

    // An inactive product (the form offers none) is refused under the add form's product.
    const inactive = products.find((p) => !p.isActive);
    expect(inactive, 'the product table has an inactive product').to.not.equal(undefined);
    await page.route(`**/api/sales-order/${id}/detail`, changeBody({ productId: inactive!.id }));
    await page.locator('#line-product').selectOption(String(active()[0].id));
    const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Add line' }).click()]);
    expect(refused.status()).to.equal(400);
    const productError = page.locator('#line-product-error');
    await productError.waitFor();
    expect(await productError.textContent()).to.not.equal('');
    const after = await apiOrder(id);
    expect(after.revisionNumber).to.equal(before.revisionNumber);
    expect(after.lines).to.deep.equal(before.lines);
    await fits('lines-server-messages-1280');
  });

  it('removes a line; focus stays in the table and the totals are the server\'s', async () => {
    const id = await orderWith([[1, 0], [2, 0], [3, 0]]);
    await openOrder(id);
    const before = await apiOrder(id);
    const gone = before.lines[1];
    await page.getByRole('button', { name: `Remove line ${gone.productName}` }).click();
    await statusSays(/^Line removed/);
    const after = await factsMatch(id);
    expect(after.lines.map((l) => l.salesOrderDetailId)).to.deep.equal([before.lines[0].salesOrderDetailId, before.lines[2].salesOrderDetailId]);
    expect(await rows()).to.deep.equal(expectedRows(after.lines));
    expect(await page.evaluate(() => document.activeElement?.id), 'focus on the next line').to.equal(`line-${before.lines[2].salesOrderDetailId}-qty`);
  });

  it('a line write over an order changed by another request shows the conflict box; reload shows the current order', async () => {
    const id = await orderWith([[1, 0], [2, 0]]);
    await openOrder(id);
    const before = await apiOrder(id);
    const behind = await server.call(`/sales-order/${id}`, {
      method: 'PATCH', body: { comment: 'Changed behind the page', revisionNumber: before.revisionNumber },
    });
    expect(behind.status, behind.text).to.equal(200);

    const line = before.lines[0];
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).fill('5');
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).press('Enter');
    const conflict = page.locator('#conflict');
    await conflict.waitFor();
    expect(await conflict.getAttribute('role')).to.equal('alert');
    expect(await conflict.getByRole('heading').textContent()).to.equal('Someone else changed this order');
    expect(await page.evaluate(() => document.activeElement?.id), 'focus moves to the conflict').to.equal('conflict');
    const kept = await apiOrder(id);
    expect(kept.lines[0].orderQty, 'nothing written').to.equal(1);
    expect(kept.revisionNumber).to.equal(before.revisionNumber + 1);

    // The same for a removal.
    const [removal] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'DELETE'),
      page.getByRole('button', { name: `Remove line ${before.lines[1].productName}` }).click(),
    ]);
    expect(removal.status()).to.equal(409);
    await page.waitForFunction(() => document.activeElement?.id === 'conflict');
    expect((await apiOrder(id)).lines).to.have.length(2);

    await page.getByRole('button', { name: 'Reload the order' }).click();
    await page.waitForFunction(() => /^Reloaded/.test(document.querySelector('#save-status')?.textContent ?? ''));
    expect(await conflict.count()).to.equal(0);
    await factsMatch(id);
    expect(await rows()).to.deep.equal(expectedRows(kept.lines));

    // After the reload, the line saves.
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).fill('5');
    await page.locator(`#line-${line.salesOrderDetailId}-qty`).press('Enter');
    await statusSays(/^Line saved/);
    expect((await factsMatch(id)).lines[0].orderQty).to.equal(5);
  });

  it('adds a line with the keyboard alone: Tab to the product, arrows to pick, type, Enter', async () => {
    const id = await orderWith([[1, 0]]);
    await openOrder(id);
    const before = await apiOrder(id);
    // From the order's heading, Tab through the page in its order until the product field: past the order's own form
    // (which comes first, so that "Save changes" is near; a date field takes four stops), then the line's fields.
    await page.locator('#order-heading').focus();
    const path: string[] = [];
    for (let i = 0; i < 40 && path.at(-1) !== 'line-product'; i++) {
      await page.keyboard.press('Tab');
      path.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || ''));
    }
    expect(path.at(-1), `focus went ${path.join(' → ')}`).to.equal('line-product');
    // The line's own fields come before the add form.
    expect(path).to.include(`line-${before.lines[0].salesOrderDetailId}-qty`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const picked = await page.locator('#line-product').inputValue();
    expect(picked).to.equal(String(active()[1].id));
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('line-qty');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('4');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('line-discount');
    await page.keyboard.type('5');
    await page.keyboard.press('Enter');
    await statusSays(/^Line added/);
    const after = await factsMatch(id);
    expect(after.lines.at(-1)).to.deep.include({ productId: active()[1].id, orderQty: 4, unitPriceDiscount: 0.05 });
    expect(await page.evaluate(() => document.activeElement?.id), 'ready for the next line').to.equal('line-product');

    // Escape in the add form clears what was typed.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Escape');
    expect(await page.locator('#line-product').inputValue()).to.equal('');
  });

  it('"Save changes" is reached with the keyboard past the order\'s own fields, however many lines the order has', async () => {
    /** The ids (or tags) Tab visits from the order's heading until "Save changes" has the focus. */
    const tabsToSave = async () => {
      await page.locator('#order-heading').focus();
      const path: string[] = [];
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        const at = await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || document.activeElement?.tagName || '');
        path.push(at);
        if (at === 'Save changes') return path;
      }
      throw new Error(`"Save changes" not reached in 60 Tab presses: ${path.join(' → ')}`);
    };
    const single = await orderWith([[1, 0]]);
    const many = await orderWith(Array.from({ length: 10 }, (_, i): [number, number] => [i + 1, 0]));
    await openOrder(single);
    const one = await tabsToSave();
    await page.evaluate((id) => (location.hash = `#/orders/${id}`), many);
    await page.waitForFunction((wanted) => document.querySelectorAll('.order-screen[data-loaded] #lines tbody tr').length === wanted, 10);
    const ten = await tabsToSave();
    expect(ten.filter((id) => id.startsWith('line-')), `focus went ${ten.join(' → ')}`).to.deep.equal([]);
    expect(ten).to.deep.equal(one);
  });

  it('at 375 px the page and the lines do not scroll sideways, and every line can be edited', async () => {
    const id = await orderWith([[1, 0.1], [32000, 0.25], [3, 0], [4, 0.0125]]);
    await openOrder(id, 375);
    const order = await apiOrder(id);
    expect(await rows()).to.deep.equal(expectedRows(order.lines));
    await fits('lines-375');
    // Every line's buttons are on screen (within the width), not cut off.
    const boxes = await page.$$eval('#lines button', (buttons) => buttons.map((b) => b.getBoundingClientRect().right));
    for (const right of boxes) expect(right).to.be.at.most(375);
    // An error next to a field does not widen it either.
    await page.locator(`#line-${order.lines[1].salesOrderDetailId}-discount`).fill('150');
    await page.locator(`#line-${order.lines[1].salesOrderDetailId}-discount`).press('Enter');
    await page.locator(`#line-${order.lines[1].salesOrderDetailId}-discount-error`).waitFor();
    await page.getByRole('button', { name: 'Add line' }).click();
    await page.locator('#line-product-error').waitFor();
    await fits('lines-375-errors');
  });
});
