/**
 * The console on a realistic day (corpus 01 + 04 + 05 and the messages realisticDay.ts adds), in
 * Debian's Chromium: every view clicked through as a duty manager and an on-call engineer would —
 * the board with a cancelled, a delayed, a diverted and a deleted flight, a flight's header and
 * timeline, a message's audit trail, the message list and the pipeline tiles, which agree with
 * `msgx status` (pipelineStatus). axe-core, injected into the same page, finds no serious or
 * critical accessibility violation on any view. MSGX_UPDATE_SCREENSHOTS=1 writes docs/console-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipelineStatus } from '../../../../src/readModel/pipelineStatus.ts';
import { waitFor } from '../../../support/waitFor.ts';
import { seriousViolations } from './axe.ts';
import { openPage, type WatchedPage } from './browser.ts';
import { consoleSetting, type ConsoleSetting } from './consoleSetting.ts';
import { loadRealisticDay } from './realisticDay.ts';

const SHOTS = process.env.MSGX_UPDATE_SCREENSHOTS === '1';
const shot = (name: string) => new URL(`../../../../docs/console-${name}.png`, import.meta.url).pathname;

let setting: ConsoleSetting;
let origin: string;
let w: WatchedPage;

beforeAll(async () => {
  setting = await consoleSetting('consoleday');
  origin = await setting.start('all', {});
  await loadRealisticDay(setting.mailbox(), setting.db.pool, new Date());
  w = await openPage(setting.browser, origin);
  await w.page.setViewportSize({ width: 1400, height: 900 });
}, 300_000);

afterAll(async () => {
  await w?.context.close();
  await setting?.close();
});

const text = async (sel: string) => (await w.page.textContent(sel)) ?? '';

describe('console on a realistic day', () => {
  it('opens the board on the day with the latest traffic, every status a word', async () => {
    await w.page.goto(`${origin}/`);
    await w.page.click('[data-testid=tab-board]');
    await w.page.waitForSelector('[data-testid=flight-880012]', { timeout: 90_000 });
    expect(await text('[data-testid=board] h2')).toContain('2025-03-14');
    expect(await text('[data-testid=flight-880003]')).toContain('cancelled');
    expect(await text('[data-testid=flight-880012]')).toContain('delayed +40 min');
    expect(await text('[data-testid=flight-880011]')).toContain('diverted PVG');
    // local HH:MM, never the full instant; gate, counters and delay codes in their columns
    const row = await text('[data-testid=flight-880002]');
    expect(row).toContain('10:40');
    expect(row).not.toContain('2025-03-14T');
    expect(row).toMatch(/G15.*A05.*81.*93/);
    expect(await text('[data-testid=board] thead')).not.toMatch(/position/i);
    // deleted flights behind the toggle
    expect(await w.page.$('[data-testid=flight-880004]')).toBeNull();
    await w.page.check('[data-testid=board-deleted]');
    await w.page.waitForSelector('[data-testid=flight-880004]');
    expect(await text('[data-testid=flight-880004]')).toContain('deleted');
    expect(await seriousViolations(w.page)).toEqual([]);
    if (SHOTS) await w.page.screenshot({ path: shot('board'), fullPage: true });
  }, 180_000);

  it('marks the row a live update changed', async () => {
    await waitFor(async () => (await text('[data-testid=board-live]')) === 'live', { timeoutMs: 90_000, what: 'the subscription' });
    await setting.mailbox().insertInbound(
      '<MSG><META><SNDR>AODB</SNDR><SEQN>990101</SEQN><DTTM>20250314100000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META><FLOP><FLID>880012</FLID><ESTT>14MAR251725</ESTT></FLOP></MSG>',
      new Date(),
    );
    await w.page.waitForSelector('[data-testid=flight-880012].changed', { timeout: 90_000 });
    await waitFor(async () => (await text('[data-testid=flight-880012]')).includes('delayed +55 min'), { timeoutMs: 90_000, what: 'the new estimate on the board' });
    // the mark is for a moment only
    await w.page.waitForSelector('[data-testid=flight-880012]:not(.changed)', { timeout: 90_000 });
  }, 180_000);

  it('searches, filters and sorts the board, all in the URL', async () => {
    await w.page.fill('[data-testid=board-search]', 'HU70');
    await waitFor(async () => (await text('[data-testid=board-count]')).startsWith('2 of'), { timeoutMs: 30_000, what: 'two HU flights' });
    expect(w.page.url()).toContain('q=HU70');
    await w.page.fill('[data-testid=board-search]', '');
    await w.page.selectOption('[data-testid=board-status]', 'cancelled');
    await waitFor(async () => (await text('[data-testid=board-count]')).startsWith('1 of'), { timeoutMs: 30_000, what: 'the cancelled flight alone' });
    expect(await w.page.$('[data-testid=flight-880003]')).not.toBeNull();
    await w.page.selectOption('[data-testid=board-status]', '');
    await w.page.selectOption('[data-testid=board-dir]', 'ARRIVAL');
    await waitFor(async () => (await w.page.$('[data-testid=flight-880002]')) === null, { timeoutMs: 30_000, what: 'departures filtered out' });
    await w.page.selectOption('[data-testid=board-dir]', '');
    await w.page.click('[data-testid=sort-flight]');
    await waitFor(async () => w.page.url().includes('sort=flight'), { timeoutMs: 30_000, what: 'sorted by flight' });
    await w.page.click('[data-testid=sort-flight]');
    await waitFor(async () => (await w.page.$$eval('[data-testid=board] tbody tr', (rs) => rs.map((r) => r.getAttribute('data-testid'))))[0] === 'flight-880003', { timeoutMs: 30_000, what: 'sorted by flight number, descending: MU5123 first' });
    expect(w.page.url()).toContain('sort=flight');
  }, 120_000);

  it('shows a flight grouped, its history as a timeline with message links, raw JSON only on request, and as-of', async () => {
    await w.page.click('[data-testid=flight-880002] a');
    await w.page.waitForSelector('[data-testid=timeline] li', { timeout: 60_000 });
    expect(w.page.url()).toContain('#/flight/880002');
    const header = await text('[data-testid=flight-state]');
    for (const group of ['Identity', 'Times', 'Resources', 'Status']) expect(header).toContain(group);
    expect(header).toContain('G15');
    expect(await text('[data-testid=change-18]')).toMatch(/estimatedTime.*11:05.*message 18/);
    expect(await w.page.$('pre.json')).toBeNull();
    await w.page.check('[data-testid=raw-toggle]');
    await w.page.waitForSelector('pre.json');
    const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await w.page.uncheck('[data-testid=raw-toggle]');
    expect(await seriousViolations(w.page)).toEqual([]);
    if (SHOTS) await w.page.screenshot({ path: shot('flight'), fullPage: true });
    // as of the decision before the estimate: no estimate yet
    const options = await w.page.$$eval('[data-testid=flight-asof] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options.length).toBeGreaterThan(5);
    await w.page.selectOption('[data-testid=flight-asof]', options[1]!);
    await w.page.waitForSelector('[data-testid=asof-note]');
    expect(w.page.url()).toContain('asOf=');
    await w.page.click('[data-testid=change-18] a');
    await w.page.waitForSelector('[data-testid=message-state]');
    expect(w.page.url()).toContain('#/message/18');
    expect(await text('[data-testid=message-state]')).toContain('FLOP/ESTT');
    expect(await seriousViolations(w.page)).toEqual([]);
    if (SHOTS) await w.page.screenshot({ path: shot('message'), fullPage: true });
  }, 120_000);

  it('pipeline tiles agree with msgx status and link to their lists; the message list shows SKIPPED too', async () => {
    await w.page.goto(`${origin}/console#/pipeline`);
    await w.page.waitForSelector('[data-testid=tile-parked]', { timeout: 60_000 });
    // msgx runs with the default airport zone (MSGX_AIRPORT_TZ): "today" is its day
    const status = await pipelineStatus(setting.db.pool, { now: new Date(), tz: 'Asia/Shanghai' });
    const count = (state: string) => status.counts.filter((c) => c.state === state).reduce((n, c) => n + Number(c.n), 0);
    expect(count('PARKED')).toBeGreaterThan(0);
    expect(await text('[data-testid=tile-parked] .n')).toBe(String(count('PARKED')));
    expect(await text('[data-testid=tile-dead] .n')).toBe(String(count('DEAD')));
    expect(await text('[data-testid=tile-skipped] .n')).toBe(String(status.skippedToday));
    expect(await w.page.getAttribute('[data-testid=tile-parked]', 'class')).toContain('bad');
    expect(await text('[data-testid=chart-decisions]')).toMatch(/decisions per minute: now \d+, highest [1-9]/);
    expect(await text('[data-testid=writer]')).toContain('since');
    expect(await text('[data-testid=standby]')).toContain(status.writer.standbys === 0 ? 'none waiting' : `${status.writer.standbys} waiting`);
    expect(await seriousViolations(w.page)).toEqual([]);
    if (SHOTS) await w.page.screenshot({ path: shot('pipeline'), fullPage: true });
    await w.page.click('[data-testid=tile-parked]');
    await w.page.waitForSelector('[data-testid=problems] tbody tr');
    expect(w.page.url()).toContain('#/messages?states=PARKED');
    expect(await w.page.$$('[data-testid=problems] tbody tr')).toHaveLength(count('PARKED'));
    await w.page.check('[data-testid=state-SKIPPED]');
    await waitFor(async () => (await text('[data-testid=problems] tbody')).includes('SKIPPED'), { timeoutMs: 30_000, what: 'SKIPPED messages listed' });
    await w.page.fill('[data-testid=messages-type]', 'FLOP');
    await w.page.press('[data-testid=messages-type]', 'Enter');
    await waitFor(async () => w.page.url().includes('type=FLOP') && !(await text('[data-testid=problems] tbody')).includes('ARPT'), { timeoutMs: 30_000, what: 'narrowed to FLOP' });
    expect(await seriousViolations(w.page)).toEqual([]);
    if (SHOTS) await w.page.screenshot({ path: shot('problems'), fullPage: true });
    expect(w.foreign).toEqual([]);
    expect(w.problems).toEqual([]);
  }, 120_000);
});
