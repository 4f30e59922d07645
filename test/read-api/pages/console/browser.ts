/**
 * Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by playwright-core — nothing
 * is downloaded. Every request a page makes is recorded; one to another host is aborted and
 * reported, so a test can assert that a page loads nothing from elsewhere (airport networks are
 * closed). CSP violations the browser reports are collected too.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.MSGX_TEST_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // As root, without a sandbox; no background traffic to Google's hosts (refused on this network).
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Every URL the page asked for. */
  readonly requests: string[];
  /** Requests to another origin (aborted). */
  readonly foreign: string[];
  /** Console errors and CSP violations the page reported. */
  readonly problems: string[];
}

export async function openPage(browser: Browser, origin: string): Promise<WatchedPage> {
  const context = await browser.newContext();
  const requests: string[] = [];
  const foreign: string[] = [];
  const problems: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    requests.push(url);
    if (url.startsWith('data:') || new URL(url).origin === origin) await route.continue();
    else {
      foreign.push(url);
      await route.abort();
    }
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  return { page, context, requests, foreign, problems };
}
