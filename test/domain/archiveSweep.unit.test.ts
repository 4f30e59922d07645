/**
 * The sweep a decision owes, read off its changes before it is folded (src/domain/archive.ts
 * `sweepOnAdvanceAfter`: the pump commits a big decision while it folds it, docs/projections.md
 * "Big decisions"), equals the sweep of the flights after the fold (`sweepOnAdvance`), for any
 * flights and any decision: created, re-created, archived and updated flights, on any days.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { latestDayAfter, sweepOnAdvance, sweepOnAdvanceAfter } from '../../src/domain/archive.ts';
import type { Change } from '../../src/domain/changes.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';

const DAYS = ['2025-03-01', '2025-03-05', '2025-03-09', '2025-03-10', '2025-03-12', '2025-03-14', '2025-03-20'];
const flid = fc.integer({ min: 1, max: 40 }).map(String);
const day = fc.constantFrom(...DAYS);
const created = fc.record({ flid, day }).map(({ flid, day }): Change => ({ type: 'FlightCreated', flid, operationDay: day, fields: {}, lists: {} } as unknown as Change));
const archived = fc.array(flid, { maxLength: 5 }).map((flids): Change => ({ type: 'FlightsArchived', flids, beforeDay: '2025-03-01' }));
const updated = flid.map((flid): Change => ({ type: 'FlightUpdated', flid, fields: { remark: 'x' } } as unknown as Change));
const change = fc.oneof({ arbitrary: created, weight: 4 }, { arbitrary: archived, weight: 1 }, { arbitrary: updated, weight: 1 });

function flightsAfter(changes: readonly Change[], base?: Map<string, FlightState>): Map<string, FlightState> {
  const flights = new Map(base);
  applyDecision(flights, { position: '1', msgId: '1', recordedAt: '2025-03-01T00:00:00.000Z', changes });
  return flights;
}

describe('the sweep read off a decision before it is folded', () => {
  it('equals the sweep of the flights it leaves', () => {
    fc.assert(
      fc.property(fc.array(created, { maxLength: 30 }), fc.array(change, { maxLength: 30 }), fc.option(day, { nil: null }), fc.integer({ min: 0, max: 10 }),
        (baseChanges, changes, latest, keepDays) => {
          const base = flightsAfter(baseChanges);
          const next = latestDayAfter(latest, changes);
          const ahead = sweepOnAdvanceAfter(base, changes, latest, next, keepDays);
          const folded = sweepOnAdvance(flightsAfter(changes, base), latest, next, keepDays);
          expect(ahead).toEqual(folded);
        }),
      { numRuns: 500 },
    );
  });

  it('sweeps the flights a decision creates on a day already out of the window, and keeps a re-created flight on its first day', () => {
    const base = flightsAfter([{ type: 'FlightCreated', flid: '1', operationDay: '2025-03-14', fields: {}, lists: {} } as unknown as Change]);
    const changes = [
      { type: 'FlightCreated', flid: '1', operationDay: '2025-03-01', fields: {}, lists: {} },
      { type: 'FlightCreated', flid: '2', operationDay: '2025-03-01', fields: {}, lists: {} },
      { type: 'FlightCreated', flid: '3', operationDay: '2025-03-20', fields: {}, lists: {} },
    ] as unknown as Change[];
    const sweeps = sweepOnAdvanceAfter(base, changes, '2025-03-14', '2025-03-20', 7);
    expect(sweeps).toEqual([{ type: 'FlightsArchived', flids: ['2'], beforeDay: '2025-03-13' }]);
  });
});
