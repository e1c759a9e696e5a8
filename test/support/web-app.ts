import type { BrowserContext, Page } from 'playwright-core';
import { screenshot } from './browser.js';
import { type TestServer, startTestServer } from './server.js';
import { addUser } from './users.js';

/**
 * The browser app served by a real server (Web:Enabled, the API under /api), with one user to log in as: by default
 * an Administrator, who is offered every screen and button (test/web/access.test.ts tests the other roles).
 */
export async function startWebApp(user: string, password: string, displayName: string, roles = ['Administrator']): Promise<{ server: TestServer; appUrl: string }> {
  const server = await startTestServer({ config: { Web: { Enabled: true }, RestAPI: { Path: '/api' }, Authentication: { PasswordHashCost: 10 } } });
  await addUser(server, user, password, roles, displayName);
  return { server, appUrl: `${new URL(server.url).origin}/` };
}

/** Waits for the app's login form, sends it, and waits until it is gone. */
export async function fillLogIn(page: Page, user: string, password: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Log in to restlayer orders' }).waitFor();
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('.login').waitFor({ state: 'detached' });
}

/** Closes a test's browser context; a failed test leaves a screenshot named `prefix` + its title first. */
export async function closeContext(test: Mocha.Context, page: Page, context: BrowserContext, prefix: string): Promise<void> {
  if (test.currentTest?.state === 'failed') await screenshot(page, `${prefix}${test.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
  await context.close();
}
