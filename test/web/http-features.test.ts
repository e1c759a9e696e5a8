import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, requireChromium } from '../support/browser.js';
import type { TestServer } from '../support/server.js';
import { fillLogIn, startWebApp } from '../support/web-app.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const USER = 'greta';
const PASSWORD = 'greta-password-1';

/** What the server saw of one request: its path, If-None-Match, and the status it answered. */
interface Seen {
  path: string;
  ifNoneMatch?: string;
  status: number;
}

/**
 * Issue 41 in a real browser: Chromium's own HTTP cache (a cache this project did not write) keeps a record and
 * revalidates it with the ETag, getting a 304; a browser set to German gets the server's messages in German.
 */
describeOneStore('web app in Chromium: conditional GET and German messages (issue 41)', WHY_ONE_STORE.web, function () {
  this.timeout(90_000);
  let server: TestServer;
  let browser: Browser;
  let appUrl: string;
  const seen: Seen[] = [];

  before(async function () {
    requireChromium(this, 'the browser tests of issue 41');
    ({ server, appUrl } = await startWebApp(USER, PASSWORD, 'Greta Geiger'));
    server.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      res.once('finish', () => seen.push({ path: req.url ?? '', ifNoneMatch: req.headers['if-none-match'], status: res.statusCode }));
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('the browser\'s cache revalidates a customer with its ETag: a 304 from the server, the record from the cache', async () => {
    const created = await server.call('/customer', { method: 'POST', body: { name: 'Cached Customer' } });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.result.customerId as number;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(appUrl);
      await fillLogIn(page, USER, PASSWORD);
      const path = `/api/customer/${id}`;
      const reads = await page.evaluate(async (url) => {
        const first = await fetch(url, { credentials: 'same-origin' });
        const second = await fetch(url, { credentials: 'same-origin', cache: 'no-cache' });
        return [{ status: first.status, body: await first.json() }, { status: second.status, body: await second.json() }];
      }, path);
      const answers = seen.filter((s) => s.path === path);
      expect(answers.map((s) => s.status)).to.deep.equal([200, 304]);
      expect(answers[1].ifNoneMatch).to.match(/^"/);
      // The page sees the record both times: the second from the browser's cache, revalidated.
      expect(reads.map((r) => r.status)).to.deep.equal([200, 200]);
      expect(reads[1].body).to.deep.equal(reads[0].body);
      expect(reads[1].body.result.name).to.equal('Cached Customer');
    } finally {
      await context.close();
    }
  });

  it('a browser set to German sees the server\'s messages in German', async () => {
    const context = await browser.newContext({ locale: 'de-DE' });
    try {
      const page = await context.newPage();
      await page.goto(appUrl);
      await page.getByLabel('User name').fill(USER);
      await page.getByLabel('Password').fill('not-the-password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.locator('#login-messages').getByText('Ungültiger Benutzername oder ungültiges Kennwort.').waitFor();
    } finally {
      await context.close();
    }
  });

  it('the Export button downloads, as CSV, every row the applied filters show', async () => {
    const tag = `Exp${Date.now()}`;
    for (let i = 0; i < 30; i++) {
      const created = await server.call('/customer', { method: 'POST', body: { name: `${tag} ${String(i).padStart(2, '0')}` } });
      expect(created.status, created.text).to.equal(201);
    }
    const context = await browser.newContext({ acceptDownloads: true });
    try {
      const page = await context.newPage();
      await page.goto(`${appUrl}#/customers?name=${tag}`);
      await fillLogIn(page, USER, PASSWORD);
      await page.locator('#results[data-loaded]').waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
      expect(download.suggestedFilename()).to.equal('customer.csv');
      const text = readFileSync((await download.path())!, 'utf8');
      const records = text.split('\r\n').filter(Boolean);
      expect(records[0].split(',').slice(0, 2)).to.deep.equal(['customerId', 'name']);
      // Every match, not the page of 25 the screen shows.
      expect(records.slice(1).map((r) => r.split(',')[1])).to.deep.equal(Array.from({ length: 30 }, (_, i) => `${tag} ${String(i).padStart(2, '0')}`));
      await page.getByText(`Exported customer.csv (30 matching rows).`).waitFor();
    } finally {
      await context.close();
    }
  });
});
