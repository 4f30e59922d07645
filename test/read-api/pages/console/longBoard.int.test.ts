/**
 * A board of 2,000 flights in Debian's Chromium (the console's files against a stub read API, no
 * database): it renders the rows in view and a margin, yet every flight stays reachable — by
 * scrolling, by Tab from the last rendered row, by search and by sort — the table tells assistive
 * technology its size (aria-rowcount, aria-rowindex), axe finds no serious violation, and a live
 * update marks its row (docs/operations.md, "Console").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { waitFor } from '../../../support/waitFor.ts';
import { seriousViolations } from './axe.ts';
import { launchChromium, openPage, type WatchedPage } from './browser.ts';
import { type BoardStub, DAY, stubServer, syntheticDay } from './syntheticBoard.ts';

const flights = syntheticDay(2000);
const shown = flights.filter((f) => !f.deleted);
const lastFlid = String(shown.at(-1)!.flid); // the day is in schedule order

let stub: BoardStub;
let browser: Browser;
let w: WatchedPage;

beforeAll(async () => {
  stub = await stubServer(flights);
  browser = await launchChromium();
  w = await openPage(browser, stub.origin);
  await w.page.setViewportSize({ width: 1400, height: 900 });
}, 120_000);

afterAll(async () => {
  await w?.context.close();
  await browser?.close();
  await stub?.close();
});

/** The rendered flight rows: testid and aria-rowindex. */
const rendered = () => w.page.$$eval('[data-testid=board] tbody tr[data-testid]', (rs) => rs.map((r) => ({ id: r.getAttribute('data-testid')!, index: Number(r.getAttribute('aria-rowindex')) })));

describe('a long board', () => {
  it('renders the rows in view and a margin, with the table\'s size told to assistive technology', async () => {
    await w.page.goto(`${stub.origin}/console#/board/${DAY}`);
    await waitFor(async () => (await w.page.textContent('[data-testid=board-count]')) === `${shown.length} of ${flights.length} flights shown`, { timeoutMs: 90_000, what: 'the board' });
    const rows = await rendered();
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(300);
    expect(rows[0]).toEqual({ id: 'flight-900000', index: 2 });
    expect(rows.map((r) => r.index)).toEqual(rows.map((_r, i) => i + 2));
    expect(await w.page.getAttribute('[data-testid=board] table', 'aria-rowcount')).toBe(String(shown.length + 1));
    // the page is as tall as the whole board
    const rowPx = await w.page.$eval('[data-testid=flight-900000]', (r) => r.getBoundingClientRect().height);
    expect(await w.page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(shown.length * rowPx);
    expect(await seriousViolations(w.page)).toEqual([]);
  }, 120_000);

  it('shows the last flight at the end of the scroll', async () => {
    await w.page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
    await w.page.waitForSelector(`[data-testid=flight-${lastFlid}]`, { timeout: 30_000 });
    const rows = await rendered();
    expect(rows.at(-1)).toEqual({ id: `flight-${lastFlid}`, index: shown.length + 1 });
    const box = await w.page.$eval(`[data-testid=flight-${lastFlid}]`, (r) => r.getBoundingClientRect().bottom);
    expect(box).toBeLessThanOrEqual(900);
    await w.page.evaluate(() => scrollTo(0, 0));
    await w.page.waitForSelector('[data-testid=flight-900000]', { timeout: 30_000 });
  }, 120_000);

  it('lets Tab go on from the last rendered row to the next one', async () => {
    const rows = await rendered();
    const edge = rows.at(-1)!;
    await w.page.focus(`[data-testid=${edge.id}] td:last-child a`); // the row's last link (flid)
    // focusing scrolls the row into view, and the board renders the rows after it
    await w.page.waitForSelector(`[data-testid=board] tbody tr[aria-rowindex="${edge.index + 1}"]`, { timeout: 30_000 });
    await w.page.keyboard.press('Tab');
    const focused = await w.page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('aria-rowindex'));
    expect(focused).toBe(String(edge.index + 1));
    await w.page.evaluate(() => scrollTo(0, 0));
  }, 120_000);

  it('marks the row a live update changed', async () => {
    await waitFor(async () => (await w.page.textContent('[data-testid=board-live]')) === 'live', { timeoutMs: 60_000, what: 'the subscription' });
    const flight = flights[3]!;
    expect(await w.page.textContent(`[data-testid=flight-${flight.flid}]`)).toContain('delayed +8 min');
    flight.estimatedTime = null; // the stub serves the flight as it is now
    stub.changed(String(flight.flid));
    await w.page.waitForSelector(`[data-testid=flight-${flight.flid}].changed`, { timeout: 60_000 });
    await waitFor(async () => (await w.page.textContent(`[data-testid=flight-${flight.flid}]`))?.includes('scheduled'), { timeoutMs: 60_000, what: 'the flight reloaded' });
    await w.page.waitForSelector(`[data-testid=flight-${flight.flid}]:not(.changed)`, { timeout: 60_000 });
  }, 120_000);

  it('searches and sorts over every flight, not only the rendered ones', async () => {
    const last = shown.at(-1)!;
    await w.page.fill('[data-testid=board-search]', String(last.flightNo));
    await waitFor(async () => (await w.page.textContent('[data-testid=board-count]'))?.startsWith('1 of'), { timeoutMs: 30_000, what: 'the last flight found' });
    expect((await rendered()).map((r) => r.id)).toEqual([`flight-${lastFlid}`]);
    // a short list is rendered whole: no row counts needed
    expect(await w.page.getAttribute('[data-testid=board] table', 'aria-rowcount')).toBeNull();
    await w.page.fill('[data-testid=board-search]', '');
    await w.page.click('[data-testid=sort-flid]');
    await w.page.click('[data-testid=sort-flid]');
    await waitFor(async () => (await rendered())[0]?.id === `flight-${lastFlid}`, { timeoutMs: 30_000, what: 'sorted by flid, descending' });
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
  }, 120_000);
});
