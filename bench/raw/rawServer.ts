/**
 * The baseline of figure 5: a plain `pg` + `node:http` endpoint answering the same JSON as msgx's
 * GraphQL for the same data, with no GraphQL in between. It issues the same statements the read
 * API's batch loaders do (src/read-api/sql: the flight row or the board page, then one statement
 * per detail table, concurrently, then one for the reference records every `…Info` field names) and
 * renders with the same mapping (FlightState → toFlightView, instants in the airport zone).
 *
 *   GET /flight?flid=N                    → {"data":{"flight":{…}}}
 *   GET /board?day=YYYY-MM-DD&first=500[&after=cursor] → {"data":{"flights":{"edges":[{"node":…}],"pageInfo":…}}}
 *
 * Run as a child process: RAW_DATABASE_URL=… node --import tsx bench/raw/rawServer.ts
 * Prints one JSON line {"msg":"raw listening","port":N} when ready.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FlightState } from '../../src/domain/flight.ts';
import { zoneFormatter } from '../../src/domain/time.ts';
import { createPool } from '../../src/platform/db.ts';
import { DETAIL_SPECS } from '../../src/readModel/flightRows.ts';
import { decodeCursor, encodeCursor } from '../../src/read-api/graphql/cursor.ts';
import { selectBoardPage, selectFlightsByFlid, type BoardFilter } from '../../src/read-api/sql/selectBoard.ts';
import { selectDetailLists } from '../../src/read-api/sql/selectFlightLists.ts';
import { selectReferenceByKeys } from '../../src/read-api/sql/selectReference.ts';
import { flightJson, flightView, referenceKeysOf } from '../harness/flightSelection.ts';

const url = process.env.RAW_DATABASE_URL;
if (!url) throw new Error('RAW_DATABASE_URL is not set');
const pool = createPool(url, { max: Number(process.env.RAW_POOL_MAX ?? 10), applicationName: 'msgx-bench-raw' });
const format = zoneFormatter(process.env.RAW_TZ ?? 'Asia/Shanghai');
const instant = (iso: string): string => format(Date.parse(iso));

/** The flights with every detail list, one statement per detail table, all at once. */
async function withLists(flights: readonly FlightState[]): Promise<FlightState[]> {
  const flids = flights.map((f) => f.flid);
  const perTable = await Promise.all(DETAIL_SPECS.map(async (spec) => ({ spec, lists: await selectDetailLists(pool, spec.table, flids) })));
  return flights.map((f) => {
    const out: Record<string, unknown> = { ...f };
    for (const { spec, lists } of perTable) {
      const own = lists.get(f.flid);
      if (own) for (const name of spec.lists) out[name] = own[name];
    }
    return out as unknown as FlightState;
  });
}

/** The flights as JSON, with the reference records their info fields name (one statement). */
async function rendered(flights: readonly FlightState[]): Promise<unknown[]> {
  const views = flights.map(flightView);
  const refs = await selectReferenceByKeys(pool, referenceKeysOf(views));
  return views.map((v) => flightJson(v, instant, refs));
}

async function flight(flid: string): Promise<unknown> {
  const found = (await selectFlightsByFlid(pool, [flid])).get(flid);
  if (!found) return { data: { flight: null } };
  const [json] = await rendered(await withLists([found]));
  return { data: { flight: json } };
}

const ALL: Omit<BoardFilter, 'operationDay'> = {
  airline: null, flightNo: null, direction: null, status: null, stand: null, gate: null, includeDeleted: false,
};

async function board(day: string, first: number, after: string | null): Promise<unknown> {
  const key = after ? decodeCursor('flights', after, 3) : null;
  const rows = await selectBoardPage(
    pool,
    { ...ALL, operationDay: day },
    key ? { operationDay: key[0]!, scheduledTime: key[1] ?? null, flid: key[2]! } : null,
    first + 1,
  );
  const page = await withLists(rows.slice(0, first));
  const json = await rendered(page);
  const last = page.at(-1);
  return {
    data: {
      flights: {
        edges: json.map((node) => ({ node })),
        pageInfo: {
          hasNextPage: rows.length > first,
          endCursor: last ? encodeCursor('flights', [last.operationDay, last.scheduledTime, last.flid]) : null,
        },
      },
    },
  };
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const u = new URL(req.url ?? '/', 'http://localhost');
  const answer =
    u.pathname === '/flight'
      ? flight(u.searchParams.get('flid') ?? '0')
      : u.pathname === '/board'
        ? board(u.searchParams.get('day') ?? '', Number(u.searchParams.get('first') ?? 100), u.searchParams.get('after'))
        : Promise.resolve(undefined);
  answer.then(
    (body) => (body === undefined ? send(res, 404, { error: 'not found' }) : send(res, 200, body)),
    (err: unknown) => send(res, 500, { error: err instanceof Error ? err.message : String(err) }),
  );
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ msg: 'raw listening', port: (server.address() as AddressInfo).port })}\n`);
});
const stop = (): void => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
