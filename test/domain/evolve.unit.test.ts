/** evolve and applyDecision: what each change does to a flight. */
import { describe, expect, it } from 'vitest';
import { archiveBefore } from '../../src/domain/archive.ts';
import { LIST_CHANGE_TYPE, type Change, type FlightCreated } from '../../src/domain/changes.ts';
import { applyDecision, emptySources, evolve } from '../../src/domain/evolve.ts';
import { emptyFields, FIELD_NAMES } from '../../src/domain/fields.ts';
import type { FlightState, ListName } from '../../src/domain/flight.ts';
import { emptyLists, LIST_NAMES } from '../../src/domain/lists.ts';

const created = (flid: string, operationDay = '2025-03-14'): FlightCreated => ({
  type: 'FlightCreated', flid, operationDay,
  fields: { ...emptyFields(), airline: 'CA', scheduledTime: '2025-03-14T01:30:00.000Z' },
  lists: emptyLists(),
});
const start = (flid = '1'): FlightState => evolve(undefined, created(flid))!;

const SAMPLE_ITEMS: Record<ListName, unknown[]> = {
  stands: [{ seq: 1, code: 'S', class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }],
  gates: [{ seq: 1, code: 'G', class: null, kind: 'D', scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }],
  counters: [{ seq: 1, code: 'C', class: 'F', kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }],
  belts: [{ seq: 1, code: 'B', class: 'X', kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }],
  chutes: [{ seq: 1, code: 'M', class: 'X', kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }],
  bridges: [{ seq: 1, bridge: 'A1', operation: 'A', time: null }],
  chocks: [{ seq: 1, stand: '1', onOff: 'ON', time: null }],
  delays: [{ code: '93', start: null, durationMinutes: 5 }],
  services: [{ code: 'CAT', quantity: 1, start: null, end: null, provider: null, abnormalReason: null, abnormalRemark: null }],
  route: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: null }],
  adjacent: [{ seq: 1, airport: 'TAO', scheduledArrival: null, scheduledDeparture: null }],
  vipGuests: [{ seq: 1, code: 'VC1', escorts: 2 }],
  pushbacks: [{ seq: 1, time: null, kind: 'OUT', stand: '214' }],
  tows: [{ seq: 1, time: null, stand: 'R07' }],
};

describe('evolve', () => {
  it('FlightCreated starts a flight at version 1, not deleted, with its day', () => {
    expect(start()).toEqual({
      ...emptyFields(), ...emptyLists(), airline: 'CA', scheduledTime: '2025-03-14T01:30:00.000Z',
      flid: '1', operationDay: '2025-03-14', deleted: false, deletedReason: null, stateVersion: 1,
      lastPosition: '0', lastMsgId: null, updatedAt: null,
    });
  });

  it('FlightUpdated sets the given fields only; null clears', () => {
    const s = evolve(evolve(start(), { type: 'FlightUpdated', flid: '1', fields: { aircraftType: '738', estimatedTime: '2025-03-14T01:20:00.000Z' } }),
      { type: 'FlightUpdated', flid: '1', fields: { estimatedTime: null } })!;
    expect(s).toMatchObject({ airline: 'CA', aircraftType: '738', estimatedTime: null, stateVersion: 3 });
  });

  it.each(LIST_NAMES.map((l) => [LIST_CHANGE_TYPE[l], l] as const))('%s replaces %s and nothing else', (type, list) => {
    const items = SAMPLE_ITEMS[list];
    const s = evolve(start(), { type, flid: '1', items } as Change)!;
    expect(s[list]).toEqual(items);
    for (const other of LIST_NAMES.filter((l) => l !== list)) expect(s[other]).toEqual([]);
    expect(s.stateVersion).toBe(2);
  });

  it('FlightDeleted and FlightRestored flip the soft delete', () => {
    const d = evolve(start(), { type: 'FlightDeleted', flid: '1', reason: 'plan-snapshot' })!;
    expect(d).toMatchObject({ deleted: true, deletedReason: 'plan-snapshot', stateVersion: 2 });
    expect(evolve(d, { type: 'FlightRestored', flid: '1' })).toMatchObject({ deleted: false, deletedReason: null, stateVersion: 3 });
  });

  it('never changes the operation day', () => {
    const s = start();
    expect(evolve(s, created('1', '2025-03-20'))).toMatchObject({ operationDay: '2025-03-14', stateVersion: 2 });
    const sneaky = { type: 'FlightUpdated', flid: '1', fields: { operationDay: '2025-03-20', flid: '9' } } as unknown as Change;
    expect(evolve(s, sneaky)).toMatchObject({ operationDay: '2025-03-14', flid: '1' });
  });

  it('ignores changes for a missing flight or another flight', () => {
    expect(evolve(undefined, { type: 'FlightUpdated', flid: '1', fields: { status: 'X' } })).toBeUndefined();
    const s = start();
    expect(evolve(s, { type: 'FlightDeleted', flid: '2', reason: 'fdel' })).toBe(s);
  });

  it('PlanSnapshotApplied changes no flight; FlightsArchived removes the named ones', () => {
    const s = start();
    const summary: Change = { type: 'PlanSnapshotApplied', stype: 'DNLD', day: '2025-03-14', windowStart: null, windowEnd: null, created: 0, updated: 0, deleted: 0, ignored: 0 };
    expect(evolve(s, summary)).toBe(s);
    expect(evolve(s, { type: 'FlightsArchived', flids: ['1'], beforeDay: '2025-03-15' })).toBeUndefined();
    expect(evolve(s, { type: 'FlightsArchived', flids: ['2'], beforeDay: '2025-03-15' })).toBe(s);
  });

  it('does not share list arrays with the change (state cannot be edited through a change)', () => {
    const items = [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: null }];
    const s = evolve(start(), { type: 'RouteReplaced', flid: '1', items })!;
    items[0]!.airport = 'XXX';
    expect(s.route[0]!.airport).toBe('PEK');
  });
});

describe('applyDecision', () => {
  it('folds changes, stamps the envelope on touched flights only (one version per decision), returns them', () => {
    const flights = new Map<string, FlightState>();
    applyDecision(flights, { position: '1', msgId: '10', recordedAt: '2025-03-14T00:00:00.000Z', changes: [created('1'), created('2')] });
    const before2 = flights.get('2');
    const touched = applyDecision(flights, {
      position: '2', msgId: '11', recordedAt: '2025-03-14T01:00:00.000Z',
      changes: [
        { type: 'FlightUpdated', flid: '1', fields: { status: 'DLY' } },
        { type: 'FlightUpdated', flid: '1', fields: { terminal: 'T2' } },
        { type: 'FlightUpdated', flid: '404', fields: { status: 'X' } },
      ],
    });
    expect([...touched]).toEqual(['1']);
    expect(flights.get('1')).toMatchObject({
      status: 'DLY', terminal: 'T2', stateVersion: 2, lastPosition: '2', lastMsgId: '11', updatedAt: '2025-03-14T01:00:00.000Z',
      sources: expect.objectContaining({ status: '11', terminal: '11' }),
    });
    expect(flights.get('2')).toBe(before2);
    expect(flights.has('404')).toBe(false);
  });

  it('replaces entries instead of editing them (earlier snapshots stay intact)', () => {
    const flights = new Map<string, FlightState>();
    applyDecision(flights, { position: '1', msgId: null, recordedAt: '2025-03-14T00:00:00.000Z', changes: [created('1')] });
    const snapshot = flights.get('1')!;
    applyDecision(flights, { position: '2', msgId: null, recordedAt: '2025-03-14T00:00:01.000Z', changes: [{ type: 'FlightUpdated', flid: '1', fields: { status: 'X' } }] });
    expect(snapshot).toMatchObject({ status: null, stateVersion: 1, lastPosition: '1' });
  });

  it('FlightsArchived removes flights and reports them as touched', () => {
    const flights = new Map<string, FlightState>();
    applyDecision(flights, { position: '1', msgId: null, recordedAt: 'x', changes: [created('1', '2025-03-12'), created('2', '2025-03-14')] });
    const sweep = archiveBefore(flights, '2025-03-13');
    expect(sweep).toEqual({ type: 'FlightsArchived', flids: ['1'], beforeDay: '2025-03-13' });
    const touched = applyDecision(flights, { position: '2', msgId: null, recordedAt: 'y', changes: [sweep!] });
    expect([...touched]).toEqual(['1']);
    expect([...flights.keys()]).toEqual(['2']);
    expect(archiveBefore(flights, '2025-03-13')).toBeNull();
  });

  it('sources: every field and list name, unset (JSON leaves them out); a record read back with some keys only is widened, not edited', () => {
    expect(Object.keys(emptySources())).toEqual([...FIELD_NAMES, ...LIST_NAMES]);
    expect(JSON.stringify(emptySources())).toBe('{}');
    const flights = new Map<string, FlightState>();
    applyDecision(flights, { position: '1', msgId: '10', recordedAt: 'x', changes: [created('1')] });
    const stored = { airline: '10', scheduledTime: '10' }; // as field_sources holds it
    const loaded: FlightState = { ...flights.get('1')!, sources: stored };
    flights.set('1', loaded);
    applyDecision(flights, {
      position: '2', msgId: '11', recordedAt: 'y',
      changes: [{ type: 'FlightUpdated', flid: '1', fields: { status: 'DLY' } }, { type: 'GatesReplaced', flid: '1', items: [] }],
    });
    const after = flights.get('1')!;
    expect(JSON.parse(JSON.stringify(after.sources))).toEqual({ airline: '10', scheduledTime: '10', status: '11', gates: '11' });
    expect(stored).toEqual({ airline: '10', scheduledTime: '10' });
    expect(loaded.sources).toBe(stored);
    applyDecision(flights, { position: '3', msgId: '12', recordedAt: 'z', changes: [{ type: 'FlightUpdated', flid: '1', fields: { status: 'X', bogus: 1 } as never }] });
    expect(flights.get('1')!.sources).toMatchObject({ status: '12', gates: '11', airline: '10' });
    expect(after.sources).toMatchObject({ status: '11' });
    expect(Object.hasOwn(flights.get('1')!, 'bogus')).toBe(false);
  });
});
