/**
 * flushPending (src/projections/flightFold.ts) builds a chunk while the one before it runs; a
 * failure is thrown only once the lane's last statement has ended, so no connection is handed back
 * mid-statement.
 */
import { describe, expect, it } from 'vitest';
import type { FlightState } from '../../src/domain/flight.ts';
import type { Queryable } from '../../src/platform/db.ts';
import { flushPending } from '../../src/projections/flightFold.ts';
import { LIVE_TABLES } from '../../src/readModel/flightTables.ts';
import { flight } from '../read-api/support/fixtures.ts';

/** A connection that runs statements one at a time, as node-pg does, failing the `failAt`-th. */
function connection(failAt: number) {
  let running = 0;
  let most = 0;
  let count = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const q = {
    query(sql: string) {
      const n = ++count;
      const run = queue.then(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((r) => setImmediate(r)); // a statement takes a turn of the event loop
        running -= 1;
        if (n === failAt) throw new Error(`statement ${n} failed`);
        return { rows: [], rowCount: 0, sql };
      });
      queue = run.catch(() => undefined);
      return run;
    },
  } as unknown as Queryable;
  return { q, stats: () => ({ running, most, count }) };
}

const flights = (n: number): Map<string, FlightState> =>
  new Map(Array.from({ length: n }, (_, i) => flight(String(700_000 + i))).map((f) => [f.flid, f]));

describe('flushPending', () => {
  it('writes every chunk, one statement at a time, with the next chunk built meanwhile', async () => {
    const { q, stats } = connection(0);
    const all = flights(5);
    const written = await flushPending(q, LIVE_TABLES, all, { dirty: new Set(all.keys()), snapshots: [] }, 2, [], undefined, new Set());
    expect(written).toBe(5);
    expect(stats()).toMatchObject({ running: 0, most: 1, count: 3 }); // three chunks, inserts only (no stored flights)
  });

  it('throws a failed chunk only after the statement sent behind it has ended', async () => {
    const { q, stats } = connection(2);
    const all = flights(6);
    await expect(flushPending(q, LIVE_TABLES, all, { dirty: new Set(all.keys()), snapshots: [] }, 2, [], undefined, new Set())).rejects.toThrow('statement 2 failed');
    expect(stats().running).toBe(0);
    expect(stats().count).toBe(3); // chunk 3 was built and sent while chunk 2 ran; nothing after the failure
  });
});
