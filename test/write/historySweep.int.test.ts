/**
 * The history sweep on traffic time (docs/contract/design.md §11): decided by the pump in FIFO order
 * right behind the decision that moved the latest operation day, in the same transaction — never
 * by the wall clock at start. So the same input gives the same log and flights however often the
 * writer restarts, and the flights of 2025 survive a start in 2026.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.ts';
import { createJobs } from '../../src/write/jobs/jobsService.ts';
import { createTestDatabase, createTestMailbox, type TestDatabase, type TestMailbox } from '../support/databases.ts';
import { adft, estt } from './support/messages.ts';
import { decisions, insertCminmsgs, procStates, startWriter, testRuntime, type DecisionRow } from './support/writeHarness.ts';

/** Two flights of 14/15 March, then one of 18 March: with 2 keep days the first two leave right after it. */
const TRAFFIC = [
  adft(1, '886001', '14MAR250800'),
  adft(2, '886002', '15MAR250800'),
  estt(3, '886001', '14MAR250812'),
  adft(4, '886003', '18MAR250800'),
  estt(5, '886002', '15MAR250830'), // its flight was swept: unknown-flight
  adft(6, '886004', '14MAR250900'), // an old day again, but the latest day does not move: kept until it does
];

/** What a decision says without times. */
const shape = (log: readonly DecisionRow[]) =>
  log.map((d) => ({ msg: d.msg_id, kind: d.kind, changes: d.kind === 'Applied' || d.kind === 'FlightsArchived' ? JSON.stringify(d.payload.changes) : String(d.payload.reason ?? '') }));

const stores: { db: TestDatabase; my: TestMailbox }[] = [];
async function freshStores(label: string) {
  const s = { db: await createTestDatabase(label), my: await createTestMailbox(label) };
  stores.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(stores.flatMap((s) => [s.db.drop(), s.my.drop()]));
});

describe('history sweep on traffic time', () => {
  let uninterrupted: DecisionRow[];
  let flightsUninterrupted: string[];
  let ids: string[];

  beforeAll(async () => {
    const { db, my } = await freshStores('sweep');
    ids = [];
    for (const x of TRAFFIC) ids.push(await insertCminmsgs(my, x));
    // The machine's clock says December 2026; the traffic is March 2025.
    const rt = testRuntime(db, my, { clock: new FakeClock('2026-12-01T02:00:00Z'), env: { MSGX_HISTORY_KEEP_DAYS: '2' } });
    const w = await startWriter(rt, { ingest: false });
    await w.ingest.pollOnce();
    await w.pump.drained();
    flightsUninterrupted = [...w.model.flights.keys()].sort();
    await w.stop();
    await rt.close();
    uninterrupted = await decisions(db);
    expect((await procStates(db)).map((p) => p.state)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'SKIPPED', 'SUCCEEDED']);
  });

  it('is appended right behind the decision that moved the latest operation day, and the pump decides on without those flights', () => {
    const byPosition = uninterrupted.map((d) => [d.msg_id, d.kind]);
    expect(byPosition).toEqual([
      [ids[0], 'Applied'], [ids[1], 'Applied'], [ids[2], 'Applied'], [ids[3], 'Applied'],
      [null, 'FlightsArchived'],
      [ids[4], 'Skipped'], [ids[5], 'Applied'],
    ]);
    expect(uninterrupted[4]!.payload).toEqual({
      changes: [{ type: 'FlightsArchived', flids: ['886001', '886002'], beforeDay: '2025-03-16' }],
      keepDays: 2,
      latestDay: '2025-03-18',
    });
    expect(uninterrupted[5]!.payload).toMatchObject({ reason: 'unknown-flight' });
    expect(flightsUninterrupted).toEqual(['886003', '886004']);
  });

  it('gives the same log and flights when the writer restarts after every message (one message per poll)', async () => {
    const { db, my } = await freshStores('sweeprestart');
    for (const x of TRAFFIC) await insertCminmsgs(my, x);
    let flights: string[] = [];
    for (let i = 0; i < TRAFFIC.length; i++) {
      // A later start on a later wall clock each time: the day on the machine must not matter.
      const rt = testRuntime(db, my, { clock: new FakeClock(new Date(Date.UTC(2026, 0, 1 + i * 40))), env: { MSGX_HISTORY_KEEP_DAYS: '2', MSGX_INGEST_BATCH: '1' } });
      const w = await startWriter(rt, { ingest: false });
      await createJobs(rt).runOnce(); // the wall-clock job of every start: archives proc_state only
      await w.ingest.pollOnce();
      await w.pump.drained();
      flights = [...w.model.flights.keys()].sort();
      await w.stop();
      await rt.close();
    }
    expect(shape(await decisions(db))).toEqual(shape(uninterrupted));
    expect(flights).toEqual(flightsUninterrupted);
  });

  it('never sweeps at start by the wall clock: flights of 2025 survive a restart in 2026 with the default keep window', async () => {
    const { db, my } = await freshStores('sweep2026');
    for (const x of TRAFFIC.slice(0, 3)) await insertCminmsgs(my, x);
    const first = testRuntime(db, my, { clock: new FakeClock('2025-03-14T02:00:00Z') });
    const w1 = await startWriter(first, { ingest: false });
    await w1.ingest.pollOnce();
    await w1.pump.drained();
    await w1.stop();
    await first.close();
    const before = await decisions(db);

    const later = testRuntime(db, my, { clock: new FakeClock('2026-06-01T02:00:00Z') });
    const w2 = await startWriter(later, { ingest: false });
    await createJobs(later).runOnce();
    await w2.pump.drained();
    expect([...w2.model.flights.keys()].sort()).toEqual(['886001', '886002']);
    expect(w2.model.latestDay).toBe('2025-03-15');
    await w2.stop();
    await later.close();
    expect(await decisions(db)).toEqual(before);
    expect(before.some((d) => d.kind === 'FlightsArchived')).toBe(false);
  });
});
