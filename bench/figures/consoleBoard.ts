/**
 * Figure 12 — the console's board of a 2,000-flight day in Debian's Chromium: how long from the
 * arrival of the board's data (the responseEnd of its last GraphQL page) until all 2,000 rows are
 * in the DOM and laid out (the first animation frame after). The goal: under 1 s.
 *
 * msgx: the console's own files (pageRoutes' assets, the same bytes msgx serves) against a stub
 * /graphql in this process that answers the board's 4 pages of 500 synthetic flights (every
 * column the board shows: gates, counters, belts, delays, A-CDM times; a mix of every status) and
 * holds the live subscription open without events. No database: the figure is the browser's work.
 * Baseline, in the same page right after: the same 2,000 rows × the same columns as one
 * innerHTML string (the least a browser can do to show that table), laid out the same way.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageRoutes } from '../../src/read-api/pages/pageRoutes.ts';
import { launchChromium } from '../../test/read-api/pages/console/browser.ts';
import { row, type Figure, type FigureResult } from '../harness/figure.ts';
import { progress } from '../harness/progress.ts';
import { round, summarize } from '../harness/stats.ts';

const FLIGHTS = 2000;
const PAGE = 500;
const DAY = '2025-03-14';
const RUNS = 7;
const GOAL_MS = 1000;

const iso = (minutes: number) => {
  const d = new Date(Date.parse(`${DAY}T00:00:00+08:00`) + minutes * 60_000);
  const local = new Date(d.getTime() + 8 * 3_600_000).toISOString().slice(0, 19);
  return `${local}+08:00`;
};

/** A day of flights with every board column filled somewhere and every status present. */
export function syntheticDay(n = FLIGHTS): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const sched = 300 + Math.floor((i * 1140) / n);
    const dep = i % 2 === 1;
    const kind = i % 20;
    const late = kind < 6 ? 5 + (i % 60) : 0;
    return {
      flid: String(900000 + i), airline: ['CA', 'MU', 'HU', '3U', 'CZ'][i % 5], flightNo: `${['CA', 'MU', 'HU', '3U', 'CZ'][i % 5]}${1000 + i}`,
      direction: dep ? 'DEPARTURE' : 'ARRIVAL', operationDay: DAY, scheduledTime: iso(sched),
      estimatedTime: late ? iso(sched + late) : null, actualTime: kind >= 14 && kind < 18 ? iso(sched + 3) : null,
      status: null, publicStatus: null, cancelled: kind === 18, deleted: kind === 19 && i % 40 === 19,
      diversionAirport: kind === 13 ? 'PVG' : null, returnType: kind === 12 ? 'G' : null, terminal: `T${1 + (i % 2)}`,
      currentStand: String(100 + (i % 90)), boardingOpen: dep && kind === 10 ? iso(sched - 35) : null, boardingClosed: null,
      gates: dep ? [{ code: `G${i % 40}` }] : [], baggageBelts: dep ? [] : [{ code: `B0${i % 9}` }],
      checkInCounters: dep ? [{ code: `A${i % 60}` }, { code: `A${(i % 60) + 1}` }] : [],
      delays: late ? [{ code: '81', durationMinutes: late }] : [], stands: [{ actualStart: null }],
      milestones: {
        estimatedOffBlock: dep ? iso(sched) : null, targetOffBlock: dep ? iso(sched + 5) : null, calculatedOffBlock: null, calculatedTakeOff: dep && kind < 3 ? iso(sched + 20) : null,
        inboundEstimate: null, approach: null, startUpRequest: null, startUp: null,
      },
    };
  });
}

/** The console's files and a stub read API answering the board (and nothing else) from `flights`. */
async function stubServer(flights: Record<string, unknown>[]): Promise<{ origin: string; close(): Promise<void> }> {
  const routes = pageRoutes();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/graphql' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': open\n\n');
      return;
    }
    if (url.pathname === '/graphql') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const { query, variables } = JSON.parse(body) as { query: string; variables: { after?: string | null } };
        let data: unknown;
        if (query.includes('flights(')) {
          const start = variables.after ? Number(variables.after) : 0;
          const page = flights.slice(start, start + PAGE);
          const next = start + PAGE < flights.length;
          data = { flights: { totalCount: flights.length, pageInfo: { hasNextPage: next, endCursor: next ? String(start + PAGE) : null }, edges: page.map((node) => ({ node })) } };
        } else {
          data = { adminEnabled: false, latestOperationDay: DAY };
        }
        const text = JSON.stringify({ data });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      });
      return;
    }
    const route = routes.find((r) => r.method === req.method && (r.path === url.pathname || (r.path.endsWith('/*') && url.pathname.startsWith(r.path.slice(0, -1)))));
    if (!route) {
      res.writeHead(404);
      res.end();
      return;
    }
    void route.handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** Runs in the page before its scripts: notes when the board has `n` rows and the frame after. */
const WATCH = (n: number) => `
  window.__board = {};
  new MutationObserver((_m, obs) => {
    if (document.querySelectorAll('[data-testid=board] tbody tr').length >= ${n}) {
      obs.disconnect();
      window.__board.rows = performance.now();
      document.body.offsetHeight; // layout
      requestAnimationFrame(() => { window.__board.frame = performance.now(); });
    }
  }).observe(document, { childList: true, subtree: true });`;

/** The baseline, run in the page: the board's rows and cells as one innerHTML string, laid out, next frame. */
const BASELINE = `(async () => {
  const rows = [...document.querySelectorAll('[data-testid=board] tbody tr')].map((r) => [...r.children].map((c) => c.textContent || ''));
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
  const flights = syntheticDay();
  const shown = flights.filter((f) => !f.deleted).length;
  const stub = await stubServer(flights);
  const browser = await launchChromium();
  const consoleMs: number[] = [];
  const baselineMs: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      await page.addInitScript(WATCH(shown));
      await page.goto(`${stub.origin}/console#/board/${DAY}`);
      await page.waitForFunction(() => (window as unknown as { __board: { frame?: number } }).__board.frame !== undefined, undefined, { timeout: 60_000 });
      const t = await page.evaluate(() => {
        const b = (window as unknown as { __board: { rows: number; frame: number } }).__board;
        const arrived = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/graphql') && (e as PerformanceResourceTiming).responseEnd <= b.rows)
          .reduce((m, e) => Math.max(m, (e as PerformanceResourceTiming).responseEnd), 0);
        return { console: b.frame - arrived };
      });
      // Baseline: the same rows and columns, as one innerHTML string, laid out, next frame.
      // (a string: tsx's helpers for named functions do not exist in the page)
      const base = await page.evaluate<number>(BASELINE);
      consoleMs.push(t.console);
      baselineMs.push(base);
      progress(`console board ${i + 1}/${RUNS}: ${round(t.console)} ms (innerHTML ${round(base)} ms)`);
      await context.close();
    }
  } finally {
    await browser.close();
    await stub.close();
  }
  const c = summarize(consoleMs);
  const b = summarize(baselineMs);
  return {
    rows: [row(`board of ${FLIGHTS} flights: data arrived → rows laid out, p50 ms`, { value: round(c.p50), unit: 'ms' },
      { value: round(b.p50), unit: 'ms', what: 'the same rows as one innerHTML string' }, 'lower',
      { text: `p90 < ${GOAL_MS} ms`, met: c.p90 < GOAL_MS })],
    details: { flights: FLIGHTS, shown, runs: RUNS, console: c, baseline: b },
  };
}

export const consoleBoardFigure: Figure = {
  id: 12,
  name: 'console',
  title: 'Console board render, 2,000 flights (Chromium)',
  run: measure,
};
