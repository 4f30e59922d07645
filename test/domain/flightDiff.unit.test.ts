import { describe, expect, it } from 'vitest';
import { evolve } from '../../src/domain/evolve.ts';
import { emptyFields } from '../../src/domain/fields.ts';
import type { Allocation, FlightState } from '../../src/domain/flight.ts';
import { ENVELOPE_FIELDS, diffFlightViews, flightDiff, isEmptyDiff } from '../../src/domain/flightDiff.ts';
import { toFlightView } from '../../src/domain/flightView.ts';
import { emptyLists } from '../../src/domain/lists.ts';

const flight = (fields: Partial<FlightState> = {}): FlightState => ({
  ...evolve(undefined, { type: 'FlightCreated', flid: '880001', operationDay: '2025-03-14', fields: emptyFields(), lists: emptyLists() })!,
  ...fields,
});
const alloc = (code: string, seq = 1): Allocation => ({
  seq, code, class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null,
});

describe('flightDiff', () => {
  it('is empty for equal states, also when one is a JSON round trip of the other', () => {
    const s = flight({ estimatedTime: '2025-03-14T02:00:00.000Z', gates: [alloc('G1')] });
    const d = flightDiff(s, JSON.parse(JSON.stringify(s)) as FlightState);
    expect(d).toEqual({ fields: {}, lists: {} });
    expect(isEmptyDiff(d)).toBe(true);
  });

  it('names fields and lists by their GraphQL names, with before and after', () => {
    const before = flight({ estimatedTime: '2025-03-14T02:00:00.000Z', currentStand: '101', counters: [alloc('C1')] });
    const after = flight({ estimatedTime: '2025-03-14T03:00:00.000Z', currentStand: '101', counters: [alloc('C2')] });
    expect(flightDiff(before, after)).toEqual({
      fields: { estimatedTime: { before: '2025-03-14T02:00:00.000Z', after: '2025-03-14T03:00:00.000Z' } },
      lists: { checkInCounters: { before: [alloc('C1')], after: [alloc('C2')] } },
    });
  });

  it('compares derived and grouped view fields (cancelled, direction, linkedFlight) as the read API shows them', () => {
    const d = flightDiff(flight({ direction: 'A' }), flight({ direction: 'D', cancelTime: '2025-03-14T05:00:00.000Z', linkFlid: '9' }));
    expect(d.fields.direction).toEqual({ before: 'ARRIVAL', after: 'DEPARTURE' });
    expect(d.fields.cancelled).toEqual({ before: false, after: true });
    expect(d.fields.cancelTime).toEqual({ before: null, after: '2025-03-14T05:00:00.000Z' });
    expect(d.fields.linkedFlight).toEqual({ before: null, after: { airline: null, flightNo: null, flid: '9' } });
    expect(d.fields).not.toHaveProperty('linkFlid');
  });

  it('shows an absent flight as all null and empty', () => {
    const s = flight({ airline: 'CA', gates: [alloc('G1')] });
    const d = flightDiff(undefined, s);
    expect(d.fields.flid).toEqual({ before: null, after: '880001' });
    expect(d.fields.airline).toEqual({ before: null, after: 'CA' });
    expect(d.fields).not.toHaveProperty('ffid'); // null on both sides
    expect(d.lists).toEqual({ gates: { before: [], after: [alloc('G1')] } });
    expect(flightDiff(s, undefined).fields.airline).toEqual({ before: 'CA', after: null });
    expect(isEmptyDiff(flightDiff(undefined, undefined))).toBe(true);
  });

  it('leaves out ignored keys such as the envelope stamps', () => {
    const a = flight({ stateVersion: 3, lastPosition: '10', lastMsgId: '5', updatedAt: '2025-03-14T00:00:00.000Z' });
    const b = flight({ stateVersion: 4, lastPosition: '12', lastMsgId: null, updatedAt: '2025-03-14T01:00:00.000Z' });
    expect(Object.keys(flightDiff(a, b).fields).sort()).toEqual([...ENVELOPE_FIELDS].sort());
    expect(isEmptyDiff(flightDiff(a, b, { ignore: ENVELOPE_FIELDS }))).toBe(true);
  });

  it('compares deletedReason, which the read API shows beside the view', () => {
    const d = flightDiff(flight({ deleted: true, deletedReason: 'fdel' }), flight({ deleted: true, deletedReason: 'plan-snapshot' }));
    expect(d.fields).toEqual({ deletedReason: { before: 'fdel', after: 'plan-snapshot' } });
  });

  it('renders instants in a zone when asked', () => {
    const d = flightDiff(flight(), flight({ scheduledTime: '2025-03-14T01:30:00.000Z' }), { tz: 'Asia/Shanghai' });
    expect(d.fields.scheduledTime).toEqual({ before: null, after: '2025-03-14T09:30:00+08:00' });
  });

  it('compares every key of the view, also ones the diff does not know (a field added to flightView)', () => {
    const v = toFlightView(flight());
    const extended = { ...v, parkedCount: 2, newList: [{ x: 1 }] } as typeof v;
    expect(diffFlightViews(v, extended)).toEqual({
      fields: { parkedCount: { before: null, after: 2 } },
      lists: { newList: { before: [], after: [{ x: 1 }] } },
    });
  });

  it('finds a difference in every field and every list of the view', () => {
    const base = toFlightView(flight());
    for (const [key, value] of Object.entries(base)) {
      const changed = Array.isArray(value) ? [{ seq: 1 }] : value === null ? 'x' : typeof value === 'boolean' ? !value : typeof value === 'number' ? value + 1 : `${String(value)}x`;
      const d = diffFlightViews(base, { ...base, [key]: changed });
      expect(Array.isArray(value) ? Object.keys(d.lists) : Object.keys(d.fields)).toEqual([key]);
    }
  });
});
