import { constants, accessSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { projectRoot } from './processes.js';

/**
 * The browser the web tests drive: Debian's Chromium (`apt-get install -y chromium`), through playwright-core
 * (no downloaded browsers). RESTLAYER_TEST_CHROMIUM names another binary.
 */
export const chromiumPath = process.env.RESTLAYER_TEST_CHROMIUM || '/usr/bin/chromium';

/**
 * Headless, no sandbox (containers run as root), and nothing that talks to the network by itself. Playwright starts
 * every browser with a fresh profile (`--user-data-dir` in a new temporary folder, removed when it closes).
 */
export const chromiumArgs = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const underCi = /^(1|true)$/i.test(process.env.CI ?? '');

/** Why Chromium cannot be used, or undefined when it can. */
export function chromiumProblem(): string | undefined {
  try {
    accessSync(chromiumPath, constants.X_OK);
    return undefined;
  } catch {
    return `Chromium is not installed at ${chromiumPath} (apt-get install -y chromium, or set RESTLAYER_TEST_CHROMIUM)`;
  }
}

/** Skips the calling suite when Chromium is missing; under CI (CI=true) a missing browser fails it instead. */
export function requireChromium(context: Mocha.Context, what: string): void {
  const problem = chromiumProblem();
  if (!problem) return;
  if (underCi) throw new Error(`${what}: ${problem}. Under CI a missing browser is a failure.`);
  console.warn(`\n  SKIPPED ${what}: ${problem}. (Under CI=true this is a failure.)\n`);
  context.skip();
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs, timeout: 60_000 });
}

/** Where screenshots go (gitignored): test-results/screenshots/<name>.png. */
export const screenshotDir = join(projectRoot, 'test-results', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** What went wrong in a page: uncaught errors, console errors other than failed requests, CSP violations. */
export interface PageProblems {
  readonly list: string[];
}

/**
 * Records a page's problems. CSP violations are caught by a listener installed before any page script runs
 * (Playwright's init scripts are not subject to the page's CSP) and by Chromium's console report of them.
 * "Failed to load resource" lines are left out: the API answers 401, 400 and 409 on purpose in these tests.
 */
export async function watchPage(page: Page): Promise<PageProblems> {
  const list: string[] = [];
  page.on('pageerror', (err) => list.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/^Failed to load resource/.test(msg.text())) list.push(`console error: ${msg.text()}`);
  });
  await page.exposeFunction('__reportCspViolation', (text: string) => list.push(`CSP violation: ${text}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`);
    });
  });
  return { list };
}
