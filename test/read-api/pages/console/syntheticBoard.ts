/**
 * A synthetic day for the console's board, and a stub read API serving it with the console's own
 * files — for figure 12 (bench/figures/consoleBoard.ts) and the long-board test (no database: the
 * board's work is the browser's).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageRoutes } from '../../../../src/read-api/pages/pageRoutes.ts';

export const DAY = '2025-03-14';
const PAGE = 500;

const iso = (minutes: number) => {
  const d = new Date(Date.parse(`${DAY}T00:00:00+08:00`) + minutes * 60_000);
  const local = new Date(d.getTime() + 8 * 3_600_000).toISOString().slice(0, 19);
  return `${local}+08:00`;
};

/** A day of flights with every board column filled somewhere and every status present. */
export function syntheticDay(n: number): Record<string, unknown>[] {
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

export interface BoardStub {
  readonly origin: string;
  /** Tell every open board subscription that `flid` changed (as flightChanged does). */
  changed(flid: string): void;
  close(): Promise<void>;
}

/**
 * The console's files and a stub read API answering the board (and nothing else) from `flights`,
 * read at each request (change a flight, then call `changed`). The subscription stays open and
 * says nothing until `changed` is called.
 */
export async function stubServer(flights: readonly Record<string, unknown>[]): Promise<BoardStub> {
  const routes = pageRoutes();
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/graphql' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': open\n\n');
      streams.add(res);
      res.on('close', () => streams.delete(res));
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
  const changed = (flid: string) => {
    const event = JSON.stringify({ data: { flightChanged: { flid, position: '1', type: 'UPDATED' } } });
    for (const res of streams) res.write(`event: next\ndata: ${event}\n\n`);
  };
  return { origin: `http://127.0.0.1:${port}`, changed, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

