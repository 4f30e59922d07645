/** toChangeView: a change as it leaves msgx (Kafka msg / NDJSON) — instants with the airport offset, nothing else changed. */
import { describe, expect, it } from 'vitest';
import { INSTANT_FIELDS, toChangeView } from '../../src/domain/changeView.ts';
import type { Change } from '../../src/domain/changes.ts';
import { FIELD_NAMES, emptyFields } from '../../src/domain/fields.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { toFlightView } from '../../src/domain/flightView.ts';
import { emptyLists } from '../../src/domain/lists.ts';
import { decideMessages } from '../projections/support/corpus.ts';
import { activeScenarioNames, readScenario } from '../support/corpusDir.ts';

const TZ = 'Asia/Shanghai';
const UTC_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const LOCAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+08:00$/;

/** Every string of a JSON value that `test` accepts, mapped by `f`. */
function mapStrings(v: unknown, test: RegExp, f: (s: string) => string): unknown {
  if (typeof v === 'string') return test.test(v) ? f(v) : v;
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, test, f));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, test, f)]));
  return v;
}
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v !== null && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

const corpusChanges = (): Change[] =>
  activeScenarioNames().flatMap((name) =>
    decideMessages(readScenario(name).files.map((f) => f.xml)).decisions.flatMap((d) => (d.payload.changes ?? []) as Change[]),
  );

describe('toChangeView', () => {
  it('INSTANT_FIELDS are exactly the fields toFlightView shows in a zone', () => {
    const base: FlightState = {
      ...emptyFields(), ...emptyLists(), flid: '1', operationDay: '2025-03-14', deleted: false, deletedReason: null,
      stateVersion: 1, lastPosition: '1', lastMsgId: null, updatedAt: null, sources: {},
    } as FlightState;
    const rendered = FIELD_NAMES.filter((name) => {
      const s = { ...base, [name]: '2025-03-14T01:30:00.000Z' } as FlightState;
      return JSON.stringify(toFlightView(s)) !== JSON.stringify(toFlightView(s, { tz: TZ }));
    });
    expect(new Set(rendered)).toEqual(INSTANT_FIELDS);
  });

  it('on every change of the corpus: no UTC instant is left, and reading the offsets back gives the change', () => {
    const changes = corpusChanges();
    expect(changes.length).toBeGreaterThan(100);
    let instants = 0;
    for (const c of changes) {
      const before = JSON.stringify(c);
      const view = toChangeView(c, TZ);
      expect(JSON.stringify(c)).toBe(before); // not touched
      expect(strings(view).filter((s) => UTC_ISO.test(s))).toEqual([]);
      instants += strings(view).filter((s) => LOCAL_ISO.test(s)).length;
      expect(mapStrings(view, LOCAL_ISO, (s) => new Date(s).toISOString())).toEqual(JSON.parse(before));
    }
    expect(instants).toBeGreaterThan(100);
  });

  it('shows each kind of instant as the API does (local time, offset, milliseconds only when there are any)', () => {
    const created = corpusChanges().find((c) => c.type === 'FlightCreated')!;
    expect(toChangeView({ type: 'FlightUpdated', flid: '1', fields: { estimatedTime: '2025-03-14T01:30:00.000Z', cancelTime: null, remark: 'Z' } }, TZ))
      .toEqual({ type: 'FlightUpdated', flid: '1', fields: { estimatedTime: '2025-03-14T09:30:00+08:00', cancelTime: null, remark: 'Z' } });
    expect(toChangeView({ type: 'ChocksReplaced', flid: '1', items: [{ seq: 1, onOff: 'ON', time: '2025-03-14T16:05:00.120Z' }] } as Change, TZ))
      .toEqual({ type: 'ChocksReplaced', flid: '1', items: [{ seq: 1, onOff: 'ON', time: '2025-03-15T00:05:00.120+08:00' }] });
    expect(toChangeView({ type: 'FlightDeleted', flid: '1', reason: 'fdel' }, TZ)).toEqual({ type: 'FlightDeleted', flid: '1', reason: 'fdel' });
    expect((toChangeView(created, 'America/New_York') as typeof created).fields.scheduledTime).toMatch(/-0[45]:00$/);
  });
});
