import { beforeAll, describe, expect, it } from 'vitest';
import { fileDatabase } from '../support/fileDatabase.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { flight, insertFlights } from './support/fixtures.ts';

const db = fileDatabase('rapiflights');
let h: Harness;

beforeAll(async () => {
  h = createHarness(db.pool);
  await insertFlights(db.pool, [
    flight('100', {
      airline: 'CA', flightNo: 'CA1501', direction: 'A', scheduledTime: '2025-03-14T01:30:00.000Z', currentStand: '212',
      linkAirline: 'CA', linkFlightNo: 'CA1502', linkFlid: '101', status: 'ARR', cancelTime: null,
      stands: [
        { seq: 2, code: '214', class: null, kind: null, scheduledStart: '2025-03-14T03:00:00.000Z', scheduledEnd: null, actualStart: null, actualEnd: null },
        { seq: 1, code: '212', class: null, kind: null, scheduledStart: '2025-03-14T01:25:00.000Z', scheduledEnd: '2025-03-14T02:55:00.000Z', actualStart: null, actualEnd: null },
      ],
      delays: [
        { code: '93', start: '2025-03-14T02:40:00.000Z', durationMinutes: 25 },
        { code: '81', start: '2025-03-14T02:40:00.000Z', durationMinutes: 10 },
        { code: '11', start: '2025-03-14T02:00:00.000Z', durationMinutes: 5 },
      ],
      route: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: '2025-03-13T23:10:00.000Z' }],
      adjacent: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: '2025-03-13T23:10:00.000Z' }],
    }),
    flight('101', { airline: 'CA', flightNo: 'CA1502', direction: 'D', scheduledTime: '2025-03-14T02:40:00.000Z', cancelTime: '2025-03-14T02:00:00.000Z',
      gates: [{ seq: 1, code: 'G15', class: null, kind: 'D', scheduledStart: null, scheduledEnd: null, actualStart: '2025-03-14T02:02:00.000Z', actualEnd: null }] }),
    flight('102', { airline: 'MU', flightNo: 'MU5123', direction: 'D', scheduledTime: '2025-03-14T04:15:00.000Z', currentStand: '214' }),
    flight('103', { airline: 'MU', flightNo: 'MU5125', direction: 'D', scheduledTime: null }),
    flight('104', { airline: 'MU', flightNo: 'MU9999', direction: 'A', scheduledTime: '2025-03-14T00:10:00.000Z', deleted: true, deletedReason: 'fdel' }),
    flight('200', { airline: 'CA', flightNo: 'CA1501', direction: 'A', operationDay: '2025-03-15', scheduledTime: '2025-03-15T01:30:00.000Z' }),
  ]);
});

describe('flight(flid)', () => {
  it('shows the row with contract names, instants in the airport zone, lists in contract order', async () => {
    const r = await h.gql(`{ flight(flid: "100") {
      flid operationDay airline flightNo direction scheduledTime currentStand status cancelled cancelTime deleted stateVersion lastPosition
      linkedFlight { airline flightNo flid } handlingAgents { passenger }
      stands { seq code scheduledStart scheduledEnd actualStart }
      delays { code start durationMinutes }
      routePoints { seq airport scheduledDeparture kind } adjacentStations { airport kind } gates { code } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data!.flight).toEqual({
      flid: '100', operationDay: '2025-03-14', airline: 'CA', flightNo: 'CA1501', direction: 'ARRIVAL',
      scheduledTime: '2025-03-14T09:30:00+08:00', currentStand: '212', status: 'ARR', cancelled: false, cancelTime: null,
      deleted: false, stateVersion: 1, lastPosition: '1',
      linkedFlight: { airline: 'CA', flightNo: 'CA1502', flid: '101' }, handlingAgents: null,
      stands: [
        { seq: 1, code: '212', scheduledStart: '2025-03-14T09:25:00+08:00', scheduledEnd: '2025-03-14T10:55:00+08:00', actualStart: null },
        { seq: 2, code: '214', scheduledStart: '2025-03-14T11:00:00+08:00', scheduledEnd: null, actualStart: null },
      ],
      delays: [
        { code: '11', start: '2025-03-14T10:00:00+08:00', durationMinutes: 5 },
        { code: '81', start: '2025-03-14T10:40:00+08:00', durationMinutes: 10 },
        { code: '93', start: '2025-03-14T10:40:00+08:00', durationMinutes: 25 },
      ],
      routePoints: [{ seq: 1, airport: 'PEK', scheduledDeparture: '2025-03-14T07:10:00+08:00', kind: 'ERUT' }],
      adjacentStations: [{ airport: 'PEK', kind: 'ROUT' }],
      gates: [],
    });
  });

  it('returns deleted flights (deleted: true) and null for an unknown flid', async () => {
    const r = await h.gql(`{ a: flight(flid: "104") { deleted deletedReason } b: flight(flid: "999") { flid } c: flight(flid: "101") { cancelled } }`);
    expect(r.data).toEqual({ a: { deleted: true, deletedReason: 'fdel' }, b: null, c: { cancelled: true } });
  });

  it('refuses a flid that is not an integer with BAD_USER_INPUT', async () => {
    const r = await h.gql(`{ flight(flid: "CA1501") { flid } }`);
    expect(r.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).toMatch(/flid must be a decimal integer/);
  });

  it('refuses a DateTime without offset with BAD_USER_INPUT', async () => {
    const r = await h.gql(`query($t: DateTime) { flight(flid: "100", asOf: $t) { flid } }`, { t: '2025-03-14 09:30' });
    expect(r.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(r.errors?.[0]?.message).toMatch(/ISO-8601 with an offset/);
  });
});

describe('flights', () => {
  const ids = (r: { data?: any }) => r.data!.flights.edges.map((e: any) => e.node.flid);

  it('orders by (operationDay, scheduledTime nulls last, flid), hides deleted flights by default, counts', async () => {
    const r = await h.gql(`{ flights { totalCount edges { node { flid } } pageInfo { hasNextPage endCursor } } }`);
    expect(ids(r)).toEqual(['100', '101', '102', '103', '200']);
    expect(r.data!.flights.totalCount).toBe(5);
    expect(r.data!.flights.pageInfo.hasNextPage).toBe(false);
    const all = await h.gql(`{ flights(includeDeleted: true) { totalCount edges { node { flid } } } }`);
    expect(ids(all)).toEqual(['104', '100', '101', '102', '103', '200']);
  });

  it('filters by day, airline, flight number, direction, status, stand (allocated or current) and gate', async () => {
    const q = async (args: string) => ids(await h.gql(`{ flights(${args}) { edges { node { flid } } } }`));
    expect(await q('operationDay: "2025-03-15"')).toEqual(['200']);
    expect(await q('airline: "MU"')).toEqual(['102', '103']);
    expect(await q('flightNo: "CA1501", operationDay: "2025-03-14"')).toEqual(['100']);
    expect(await q('direction: DEPARTURE')).toEqual(['101', '102', '103']);
    expect(await q('status: "ARR"')).toEqual(['100']);
    expect(await q('stand: "214"')).toEqual(['100', '102']);
    expect(await q('gate: "G15"')).toEqual(['101']);
  });

  it('pages with an opaque cursor without gaps or repeats', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const r: any = await h.gql(`query($after: String) { flights(first: 2, after: $after, includeDeleted: true) { totalCount edges { cursor node { flid } } pageInfo { hasNextPage endCursor } } }`, { after });
      expect(r.data.flights.totalCount).toBe(6);
      seen.push(...ids(r));
      if (!r.data.flights.pageInfo.hasNextPage) break;
      after = r.data.flights.pageInfo.endCursor;
    }
    expect(seen).toEqual(['104', '100', '101', '102', '103', '200']);
  });

  it('limits the page size and refuses foreign cursors with a code', async () => {
    const big = await h.gql(`{ flights(first: 501) { totalCount } }`);
    expect(big.errors?.[0]?.extensions?.code).toBe('PAGE_SIZE_EXCEEDED');
    expect(big.errors?.[0]?.message).toMatch(/first must be between 0 and 500/);
    const bad = await h.gql(`{ flights(after: "bm9wZQ") { totalCount } }`);
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const hist = await h.gql(`{ flightHistory(flid: "100") { pageInfo { endCursor } } }`);
    expect(hist.errors).toBeUndefined();
  });

  it('refuses a bad Date argument with BAD_USER_INPUT', async () => {
    const r = await h.gql(`{ flights(operationDay: "2025-02-30") { totalCount } }`);
    expect(r.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('limits and errors', () => {
  it('refuses queries nested deeper than the limit', async () => {
    const r = await h.gql(`{ pipeline { head { decisions { changes { type } } } } }`);
    expect(r.errors).toBeUndefined();
    const { createReadYoga } = await import('../../src/read-api/graphql/createYoga.ts');
    const shallow = createReadYoga({ db: h.db, clock: h.clock, log: (await import('../../src/platform/logger.ts')).silentLogger, tz: 'Asia/Shanghai', identityIncludeDay: false }, h.feed, { maxDepth: 3 });
    const res = await shallow.fetch('http://localhost/graphql', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ pipeline { head { decisions { changes { type } } } } }` }),
    });
    const body = (await res.json()) as any;
    expect(body.errors[0].extensions.code).toBe('DEPTH_LIMIT_EXCEEDED');
    expect(body.errors[0].message).toMatch(/5 levels deep; the limit is 3/);
  });

  it('refuses many aliased pages in one query (cost limit), and allows what fits', async () => {
    const aliases = (n: number, first: string) =>
      Array.from({ length: n }, (_, i) => `a${i}: flights(first: ${first}) { totalCount }`).join(' ');
    const tooMuch = await h.gql(`{ ${aliases(5, '500')} }`);
    expect(tooMuch.errors?.[0]?.extensions?.code).toBe('COST_LIMIT_EXCEEDED');
    expect(tooMuch.errors?.[0]?.message).toMatch(/2500 rows .* limit is 2000/);
    const viaVariable = await h.gql(`query ($n: Int) { ${aliases(5, '$n')} }`);
    expect(viaVariable.errors?.[0]?.extensions?.code).toBe('COST_LIMIT_EXCEEDED');
    const fits = await h.gql(`{ ${aliases(4, '500')} }`);
    expect(fits.errors).toBeUndefined();
  });

  it('masks unexpected errors as "Unexpected error." with a code and no stack', async () => {
    const broken = createHarness(db.pool, {
      db: { query: (async () => { throw new Error('relation "secret_table" does not exist'); }) as never },
    });
    const r = await broken.gql(`{ flights { totalCount } }`);
    expect(r.errors?.[0]?.message).toBe('Unexpected error.');
    expect(r.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(JSON.stringify(r)).not.toMatch(/secret_table|at .*\.ts/);
  });

  it('yoga renders no GraphiQL page of its own (it loads from a CDN); msgx serves its own offline one (test/read-api/pages/console)', async () => {
    const res = await h.yoga.fetch('http://localhost/graphql', { headers: { accept: 'text/html' } });
    expect(await res.text()).not.toMatch(/unpkg\.com|cdn/i);
  });
});
