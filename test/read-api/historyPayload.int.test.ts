/**
 * `Decision.payload` in `flightHistory` holds only that flight's part (docs/security.md): a plan snapshot
 * names thousands of flights, and every page of a flight's history carried all of them.
 */
import { beforeAll, expect, it } from 'vitest';
import { fileDatabase } from '../support/fileDatabase.ts';
import { appendBatch } from '../support/decisions.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { insertMessage } from './support/fixtures.ts';

const db = fileDatabase('histpayload');
let h: Harness;
const OTHERS = Array.from({ length: 300 }, (_, i) => String(9000 + i));

beforeAll(async () => {
  h = createHarness(db.pool);
  await insertMessage(db.pool, { id: '1', xml: '<MSG/>', state: 'SUCCEEDED' });
  await appendBatch(db.pool, [
    {
      position: '1', msgId: '1', handler: 'schd-snapshot', flids: ['800', ...OTHERS], recordedAt: '2025-03-14T01:00:00Z',
      payload: {
        changes: [
          { type: 'FlightUpdated', flid: '800', fields: { publicRemark: 'R1' } },
          ...OTHERS.map((flid) => ({ type: 'FlightUpdated' as const, flid, fields: { publicRemark: 'R2' } })),
          { type: 'FlightsArchived', flids: ['800', ...OTHERS], beforeDay: '2025-03-13' },
          { type: 'PlanSnapshotApplied', stype: 'DNLD', day: '2025-03-14', windowStart: null, windowEnd: null, created: 0, updated: 301, deleted: 0, ignored: 0 },
        ],
      },
    },
  ]);
});

it('shows only the flight\'s own changes (and flight-less summaries) in payload, as in changes', async () => {
  const r = await h.gql('{ flightHistory(flid: "800") { edges { node { payload changes { flid type } } } } }');
  expect(r.errors).toBeUndefined();
  const node = r.data!.flightHistory.edges[0].node;
  expect(JSON.parse(node.payload)).toEqual({
    changes: [
      { type: 'FlightUpdated', flid: '800', fields: { publicRemark: 'R1' } },
      { type: 'FlightsArchived', flids: ['800'], beforeDay: '2025-03-13' },
      { type: 'PlanSnapshotApplied', stype: 'DNLD', day: '2025-03-14', windowStart: null, windowEnd: null, created: 0, updated: 301, deleted: 0, ignored: 0 },
    ],
  });
  expect(node.changes.map((c: { flid: string | null }) => c.flid)).toEqual(['800', null, null]);
  // message(id) still shows the whole decision
  const whole = await h.gql('{ message(id: "1") { decisions { payload } } }');
  expect(JSON.parse(whole.data!.message.decisions[0].payload).changes).toHaveLength(OTHERS.length + 3);
});
