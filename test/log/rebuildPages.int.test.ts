import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDecisionsAfter, type DecisionEvent } from '../../src/log/readDecisions.ts';
import { readRebuildPage, type PageBounds } from '../../src/log/rebuildPages.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { buildLog } from '../projections/support/log.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('rebuildpages');
  await buildLog(db.pool, { days: 2, flightsPerDay: 40, opsPerDay: 150, seed: 7 });
  // Times the page sends as milliseconds since 1970: microseconds (truncated, as to_char's MS), before 1970.
  await db.pool.query(
    `INSERT INTO decision_event (position, msg_id, kind, handler, handler_version, flids, payload, recorded_at)
     SELECT m + i, NULL, 'Applied', 'test', 1, '{}', '{"changes": []}', t::timestamptz
       FROM (SELECT max(position) AS m FROM decision_event) h,
            unnest(ARRAY['2025-03-10 01:02:03.456789+00', '1969-12-31 23:59:59.9996+00', '2025-03-10 01:02:03.999999+08']) WITH ORDINALITY AS x(t, i)`,
  );
  // Text that is not ASCII (decoded as UTF-8, not Latin-1), and changes longer than a parse part's 48 KB.
  await db.pool.query(
    `INSERT INTO decision_event (position, msg_id, kind, handler, handler_version, flids, payload, recorded_at)
     SELECT m + i, 77, 'Applied', 'test', 1, '{}', p::jsonb, '2025-03-11 00:00:00+00'
       FROM (SELECT max(position) AS m FROM decision_event) h,
            unnest(ARRAY[$1, $2, $1]) WITH ORDINALITY AS x(p, i)`,
    [
      JSON.stringify({ changes: [{ type: 'FlightUpdated', flid: 'X1', fields: { remark: '首都机场 T3 "延误"\\ \u0001' } }] }),
      JSON.stringify({ changes: [{ type: 'FlightUpdated', flid: 'X2', fields: { remark: 'r'.repeat(70_000) } }] }),
    ],
  );
});
afterAll(async () => db?.drop());

async function all(read: (after: string) => Promise<{ events: DecisionEvent[]; more: boolean }>): Promise<DecisionEvent[]> {
  const out: DecisionEvent[] = [];
  let after = '0';
  for (;;) {
    const { events, more } = await read(after);
    out.push(...events);
    if (!more || events.length === 0) return out;
    after = events[events.length - 1]!.position;
  }
}

describe("the rebuild's pages of the log", () => {
  it('give the events readDecisionsAfter gives, whatever the page and byte bounds', async () => {
    const expected = await all(async (after) => {
      const events = await readDecisionsAfter(db.pool, after, 100);
      return { events, more: events.length === 100 };
    });
    expect(expected.some((e) => (e.changes?.length ?? 0) > 20)).toBe(true); // plans among them
    const cases: [number, PageBounds | undefined][] = [
      [100, undefined],
      [7, undefined],
      [100, { bigBytes: 2_000, pageBytes: 16 << 20 }], // plans read apart
      [100, { bigBytes: 1 << 20, pageBytes: 3_000 }], // pages cut by bytes
      [1, { bigBytes: 0, pageBytes: 0 }],
    ];
    const c = await db.pool.connect();
    try {
      for (const [limit, bounds] of cases) {
        const got = await all((after) => readRebuildPage(c, after, limit, bounds));
        expect(got).toEqual(expected);
      }
      // Two pages asked for at once on one client: each COPY runs with its own page's settings.
      const [first, second] = await Promise.all([readRebuildPage(c, '0', 5), readRebuildPage(c, expected[9]!.position, 5)]);
      expect([first.events, second.events]).toEqual([expected.slice(0, 5), expected.slice(10, 15)]);
    } finally {
      c.release();
    }
  });
});
