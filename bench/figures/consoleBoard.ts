/**
 * Figure 12 — the console's board of a 2,000-flight day in Debian's Chromium: how long from the
 * arrival of the board's data (the responseEnd of its last GraphQL page) until the board is shown
 * — its count says all 2,000 flights, the rows in view are in the DOM (a board that long renders
 * the rows in view and a margin, docs/operations.md "Console") — and laid out (the first animation
 * frame after). The goal: under 1 s. Beside it: a jump to the end of the board (scrollTo the
 * bottom → the last flight's row laid out, next frame), the cost the window moves to scrolling.
 *
 * msgx: the console's own files (pageRoutes' assets, the same bytes msgx serves) against a stub
 * /graphql in this process that answers the board's 4 pages of 500 synthetic flights (every
 * column the board shows: gates, counters, belts, delays, A-CDM times; a mix of every status) and
 * holds the live subscription open without events. No database: the figure is the browser's work.
 * Baseline, in the same page right after: every row of the board (collected by scrolling through
 * it, which also checks that each flight is reachable) × the same columns as one innerHTML string
 * (the least a browser can do to show that table whole), laid out the same way.
 * MSGX_BENCH_PROFILE=1 writes the first run's CPU profile of the page (.cpuprofile) to a temporary folder.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchChromium } from '../../test/read-api/pages/console/browser.ts';
import { DAY, stubServer, syntheticDay } from '../../test/read-api/pages/console/syntheticBoard.ts';
import { row, type Figure, type FigureResult } from '../harness/figure.ts';
import { progress } from '../harness/progress.ts';
import { round, summarize } from '../harness/stats.ts';

const FLIGHTS = 2000;
const RUNS = 7;
const GOAL_MS = 1000;

/** Runs in the page before its scripts: notes when the board counts `n` flights with rows shown, and the frame after. */
const WATCH = (n: number) => `
  window.__board = {};
  new MutationObserver((_m, obs) => {
    const count = document.querySelector('[data-testid=board-count]');
    if (count && count.textContent.startsWith('${n} of') && document.querySelector('[data-testid=board] tbody tr[data-testid]')) {
      obs.disconnect();
      window.__board.rows = performance.now();
      document.body.offsetHeight; // layout
      requestAnimationFrame(() => { window.__board.frame = performance.now(); });
    }
  }).observe(document, { childList: true, subtree: true });`;

/** In the page: scroll to the bottom; ms until the row \`last\` is in the DOM, laid out, next frame. */
const TO_THE_END = (last: string) => `(async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const t0 = performance.now();
  scrollTo(0, document.documentElement.scrollHeight);
  while (!document.querySelector('[data-testid="${last}"]')) await frame();
  void document.body.offsetHeight;
  await frame();
  const ms = performance.now() - t0;
  scrollTo(0, 0);
  await frame();
  return ms;
})()`;

/** In the page: every row's cells, by scrolling through the board a screen at a time. */
const ALL_ROWS = `(async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const rows = new Map();
  for (let y = 0; ; y += innerHeight) {
    scrollTo(0, y);
    await frame();
    await frame();
    for (const r of document.querySelectorAll('[data-testid=board] tbody tr[data-testid]')) {
      if (!rows.has(r.dataset.testid)) rows.set(r.dataset.testid, [...r.children].map((c) => c.textContent || ''));
    }
    if (y + innerHeight >= document.documentElement.scrollHeight) break;
  }
  scrollTo(0, 0);
  return [...rows.values()];
})()`;

/** The baseline, run in the page: `rows` × cells as one innerHTML string, laid out, next frame. */
const BASELINE = (rows: string[][]) => `(async () => {
  const rows = ${JSON.stringify(rows)};
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const host = document.createElement('div');
  document.body.appendChild(host);
  const t0 = performance.now();
  host.innerHTML = '<table class="grid board"><tbody>' + rows.map((r) => '<tr>' + r.map((c) => '<td>' + esc(c) + '</td>').join('') + '</tr>').join('') + '</tbody></table>';
  void document.body.offsetHeight;
  await new Promise((r) => requestAnimationFrame(r));
  return performance.now() - t0;
})()`;

async function measure(): Promise<FigureResult> {
  const flights = syntheticDay(FLIGHTS);
  const shown = flights.filter((f) => !f.deleted);
  const last = `flight-${String(shown.at(-1)!.flid)}`; // the day is in schedule order
  const stub = await stubServer(flights);
  const browser = await launchChromium();
  const profileDir = process.env.MSGX_BENCH_PROFILE === '1' ? await mkdtemp(path.join(tmpdir(), 'msgx-bench-console-')) : null;
  const consoleMs: number[] = [];
  const endMs: number[] = [];
  const baselineMs: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      const cdp = profileDir && i === 0 ? await context.newCDPSession(page) : null;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.start');
      }
      await page.addInitScript(WATCH(shown.length));
      await page.goto(`${stub.origin}/console#/board/${DAY}`);
      await page.waitForFunction(() => (window as unknown as { __board: { frame?: number } }).__board.frame !== undefined, undefined, { timeout: 60_000 });
      if (cdp && profileDir) {
        const { profile } = await cdp.send('Profiler.stop');
        await writeFile(path.join(profileDir, 'board.cpuprofile'), JSON.stringify(profile));
        progress(`CPU profile of the page: ${profileDir}/board.cpuprofile`);
      }
      const t = await page.evaluate(() => {
        const b = (window as unknown as { __board: { rows: number; frame: number } }).__board;
        const arrived = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/graphql') && (e as PerformanceResourceTiming).responseEnd <= b.rows)
          .reduce((m, e) => Math.max(m, (e as PerformanceResourceTiming).responseEnd), 0);
        return { console: b.frame - arrived };
      });
      // (strings: tsx's helpers for named functions do not exist in the page)
      const end = await page.evaluate<number>(TO_THE_END(last));
      const rows = await page.evaluate<string[][]>(ALL_ROWS);
      if (rows.length !== shown.length) throw new Error(`scrolling through the board showed ${rows.length} of its ${shown.length} flights`);
      const base = await page.evaluate<number>(BASELINE(rows));
      consoleMs.push(t.console);
      endMs.push(end);
      baselineMs.push(base);
      progress(`console board ${i + 1}/${RUNS}: ${round(t.console)} ms, to the end ${round(end)} ms (innerHTML ${round(base)} ms)`);
      await context.close();
    }
  } finally {
    await browser.close();
    await stub.close();
  }
  const c = summarize(consoleMs);
  const e = summarize(endMs);
  const b = summarize(baselineMs);
  return {
    rows: [
      row(`board of ${FLIGHTS} flights: data arrived → rows laid out, p50 ms`, { value: round(c.p50), unit: 'ms' },
        { value: round(b.p50), unit: 'ms', what: 'every row as one innerHTML string' }, 'lower',
        { text: `p90 < ${GOAL_MS} ms`, met: c.p90 < GOAL_MS }),
      row('board: jump to its end → last row laid out, p50 ms', { value: round(e.p50), unit: 'ms' },
        { value: round(b.p50), unit: 'ms', what: 'every row as one innerHTML string' }, 'lower',
        { text: `p90 < ${GOAL_MS} ms`, met: e.p90 < GOAL_MS }),
    ],
    details: { flights: FLIGHTS, shown: shown.length, runs: RUNS, console: c, toTheEnd: e, baseline: b },
  };
}

export const consoleBoardFigure: Figure = {
  id: 12,
  name: 'console',
  title: 'Console board render, 2,000 flights (Chromium)',
  run: measure,
};
