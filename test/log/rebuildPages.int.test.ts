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
    for (const [limit, bounds] of cases) {
      const got = await all((after) => readRebuildPage(db.pool, after, limit, bounds));
      expect(got).toEqual(expected);
    }
  });
});
