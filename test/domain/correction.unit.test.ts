import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/domain/changes.ts';
import { correctionChanges } from '../../src/domain/correction.ts';
import { applyDecision, evolve } from '../../src/domain/evolve.ts';
import { emptyFields } from '../../src/domain/fields.ts';
import type { Allocation, FlightState } from '../../src/domain/flight.ts';
import { ENVELOPE_FIELDS, flightDiff, isEmptyDiff } from '../../src/domain/flightDiff.ts';
import { emptyLists } from '../../src/domain/lists.ts';

const flight = (flid: string, over: Partial<FlightState> = {}): FlightState => ({
  ...evolve(undefined, { type: 'FlightCreated', flid, operationDay: '2025-03-14', fields: emptyFields(), lists: emptyLists() })!,
  ...over,
});
const alloc = (code: string, seq = 1): Allocation => ({
  seq, code, class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null,
});

/** Fold the correction onto `before` as every reader does (applyDecision) and return the flight after it. */
function corrected(before: FlightState | undefined, after: FlightState | undefined, flid: string): { state: FlightState | undefined; changes: Change[] } {
  const changes = correctionChanges(before, after);
  const flights = new Map<string, FlightState>(before ? [[flid, before]] : []);
  applyDecision(flights, { position: '99', msgId: null, recordedAt: '2025-03-15T00:00:00.000Z', changes });
  return { state: flights.get(flid), changes };
}

describe('correctionChanges', () => {
  it('is empty when nothing differs', () => {
    const s = flight('1', { estimatedTime: '2025-03-14T02:00:00.000Z' });
    expect(correctionChanges(s, { ...s, stateVersion: 9, lastPosition: '77' })).toEqual([]);
    expect(correctionChanges(undefined, undefined)).toEqual([]);
  });

  it('updates only the differing fields and replaces only the differing lists', () => {
    const before = flight('1', { estimatedTime: '2025-03-14T02:00:00.000Z', airline: 'CA', gates: [alloc('G1')], stands: [alloc('S1')] });
    const after = { ...before, estimatedTime: '2025-03-14T03:00:00.000Z', gates: [alloc('G2')] };
    const { changes, state } = corrected(before, after, '1');
    expect(changes).toEqual([
      { type: 'FlightUpdated', flid: '1', fields: { estimatedTime: '2025-03-14T03:00:00.000Z' } },
      { type: 'GatesReplaced', flid: '1', items: [alloc('G2')] },
    ]);
    expect(state!.stateVersion).toBe(before.stateVersion + 1); // one decision = one version (interface.md), however many changes
    expect(isEmptyDiff(flightDiff(state, after, { ignore: ENVELOPE_FIELDS }))).toBe(true);
  });

  it('creates a flight the log lacks, removes one the re-decision lacks, restores and deletes', () => {
    const s = flight('7', { airline: 'MU', delays: [{ code: '93', start: null, durationMinutes: 5 }] });
    expect(corrected(undefined, s, '7').state).toMatchObject({ airline: 'MU', operationDay: '2025-03-14' });
    expect(corrected(s, undefined, '7').state).toBeUndefined();
    const gone = { ...s, deleted: true, deletedReason: 'fdel' };
    expect(corrected(gone, s, '7').state).toMatchObject({ deleted: false, deletedReason: null });
    expect(corrected(s, gone, '7').state).toMatchObject({ deleted: true, deletedReason: 'fdel' });
    expect(corrected(gone, { ...gone, deletedReason: 'plan-snapshot' }, '7').state).toMatchObject({ deletedReason: 'plan-snapshot' });
  });

  it('moves a flight to another operation day by removing and re-creating it', () => {
    const before = flight('3', { airline: 'CA' });
    const after = { ...before, operationDay: '2025-03-15', airline: 'CZ' };
    const { changes, state } = corrected(before, after, '3');
    expect(changes.map((c) => c.type)).toEqual(['FlightsArchived', 'FlightCreated']);
    expect(state).toMatchObject({ operationDay: '2025-03-15', airline: 'CZ' });
  });

  it('brings any flight to any other (property)', () => {
    const time = fc.option(fc.constantFrom('2025-03-14T01:00:00.000Z', '2025-03-14T02:30:00.000Z'), { nil: null });
    const code = fc.option(fc.constantFrom('CA', 'MU', '101', 'X'), { nil: null });
    const state = fc.record({
      estimatedTime: time, scheduledTime: time, airline: code, currentStand: code, status: code,
      gates: fc.array(fc.constantFrom('G1', 'G2', 'G3'), { maxLength: 2 }).map((cs) => cs.map((c, i) => alloc(c, i + 1))),
      deleted: fc.boolean(), day: fc.constantFrom('2025-03-14', '2025-03-15'), present: fc.boolean(),
    }).map((r) => r.present
      ? flight('5', { ...r, operationDay: r.day, deletedReason: r.deleted ? 'fdel' : null })
      : undefined);
    fc.assert(fc.property(state, state, (before, after) => {
      const { state: got } = corrected(before, after, '5');
      expect(isEmptyDiff(flightDiff(got, after, { ignore: ENVELOPE_FIELDS }))).toBe(true);
      expect(got?.operationDay).toBe(after?.operationDay);
    }));
  });
});
