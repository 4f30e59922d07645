import { beforeAll, expect, it } from 'vitest';
import { DOC_VERSION } from '../../src/readModel/flightDoc.ts';
import { DETAIL_TABLES } from '../../src/readModel/flightRows.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { boardPages, createHarness, type Harness } from './support/harness.ts';
import { flight, insertFlights } from './support/fixtures.ts';

const db = fileDatabase('rapiboard');
let h: Harness;
const N = 2000;
const t = (min: number) => new Date(Date.UTC(2025, 2, 14, 0, min)).toISOString();

beforeAll(async () => {
  h = createHarness(db.pool);
  const alloc = (seq: number, code: string) => ({ seq, code, class: 'Y', kind: 'D', scheduledStart: t(seq), scheduledEnd: t(seq + 30), actualStart: null, actualEnd: null });
  const flights = Array.from({ length: N }, (_, i) =>
    flight(String(500000 + i), {
      airline: 'CA', flightNo: `CA${i}`, direction: i % 2 ? 'D' : 'A', scheduledTime: t(i % 1440),
      stands: [alloc(1, `S${i}`)], gates: [alloc(1, `G${i}`)], counters: [alloc(1, 'A1'), alloc(2, 'A2')], belts: [alloc(1, 'B1')],
      chutes: [alloc(1, 'C1')], bridges: [{ seq: 1, bridge: 'BR1', operation: 'A', time: t(5) }],
      chocks: [{ seq: 1, stand: `S${i}`, onOff: 'ON', time: t(6) }], delays: [{ code: '81', start: t(7), durationMinutes: 10 }],
      services: [{ code: 'CAT', quantity: 1, start: t(8), end: t(9), provider: 'X', abnormalReason: null, abnormalRemark: null }],
      route: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: t(1) }, { seq: 2, airport: 'TAO', scheduledArrival: t(100), scheduledDeparture: null }],
      adjacent: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: t(1) }],
    }),
  );
  await insertFlights(db.pool, flights);
}, 120_000);

const BOARD = `query($first: Int, $after: String) { flights(operationDay: "2025-03-14", first: $first, after: $after) {
  totalCount pageInfo { hasNextPage endCursor }
  edges { node { flid flightNo
    stands { code } gates { code } checkInCounters { code } baggageBelts { code } chutes { code }
    bridges { bridge } chocks { stand } delays { code } services { code } routePoints { airport kind } adjacentStations { airport } } } } }`;

it('serves a 2,000-flight board with every detail list in a bounded number of statements per page', async () => {
  // page (1) + totalCount (1) + one statement per detail table, whatever the page size
  const bound = 2 + DETAIL_TABLES.length;
  let seen = 0;
  const pages = await boardPages(h, BOARD, 500);
  for (const { flights } of pages) {
    seen += flights.edges.length;
    const sample = flights.edges[0].node;
    const i = Number(sample.flid) - 500000;
    expect(sample.stands).toEqual([{ code: `S${i}` }]);
    expect(sample.checkInCounters).toEqual([{ code: 'A1' }, { code: 'A2' }]);
    expect(sample.routePoints).toEqual([{ airport: 'PEK', kind: 'ERUT' }, { airport: 'TAO', kind: 'ERUT' }]);
    expect(flights.totalCount).toBe(N);
  }
  expect(seen).toBe(N);
  expect(pages).toHaveLength(4);
  for (const p of pages) expect(p.statements.length).toBeLessThanOrEqual(bound);

  h.db.reset();
  await h.gql(BOARD, { first: 3 });
  expect(h.db.statements.length).toBe(pages[0]!.statements.length); // same number for 3 flights as for 500
});

it('reads a page of current documents in one statement, and rows without one from their tables', async () => {
  const QUERY = `{ flights(first: 500) { edges { node { flid stands { code } routePoints { airport } } } } }`;
  h.db.reset();
  const fast: any = await h.gql(QUERY);
  expect(fast.errors).toBeUndefined();
  // the response cache's checkpoint read, then the page
  expect(h.db.statements).toHaveLength(2);
  expect(h.db.statements[0]).toMatch(/projection_checkpoint/);
  expect(h.db.statements[1]).toMatch(/doc_version/);

  // Rows written before documents existed (or by another document version): read from the tables.
  // (and the projection moves, as it does whenever rows change: else the cached answer is served)
  await db.pool.query('UPDATE flight_schd SET doc_version = NULL WHERE flid % 7 = 0');
  await db.pool.query("UPDATE projection_checkpoint SET position = position + 1 WHERE name = 'flights'");
  try {
    h.db.reset();
    const mixed: any = await h.gql(QUERY);
    expect(mixed.errors).toBeUndefined();
    expect(mixed.data).toEqual(fast.data);
    expect(h.db.statements.some((q) => /FROM public\.flight_stand WHERE/.test(q))).toBe(true);
    expect(h.db.statements.length).toBeLessThanOrEqual(3 + DETAIL_TABLES.length);
  } finally {
    await db.pool.query('UPDATE flight_schd SET doc_version = $1', [DOC_VERSION]);
  }
});
