import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/usageError.ts';
import { selectionOf } from '../../src/cli/verifyCommand.ts';
import { compareFlight } from '../../src/consistency/flightCheck.ts';
import { foldForCheck } from '../../src/consistency/foldForCheck.ts';
import { nextDailyRun } from '../../src/consistency/nextDailyRun.ts';
import type { LogEvent } from '../../src/log/readForFlights.ts';
import { describeMismatch } from '../../src/consistency/report.ts';
import type { Change } from '../../src/domain/changes.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { isSentKind, outboxRowsFor } from '../../src/projections/decisionOutbox.ts';
import { planLog } from '../projections/support/log.ts';

const log = planLog({ days: 2, flightsPerDay: 30, opsPerDay: 120, seed: 11 });
const events: LogEvent[] = log.decisions.map((d, i) => ({
  position: String(i + 1),
  msgId: d.msgId,
  kind: d.kind,
  recordedAt: d.recordedAt.toISOString(),
  changes: d.payload.changes ?? [],
  indices: null,
}));
async function* pages(es: readonly LogEvent[]): AsyncGenerator<LogEvent[]> {
  for (let i = 0; i < es.length; i += 100) yield es.slice(i, i + 100);
}
const head = String(events.length);

/** The msg_event keys the outbox feeder writes for the whole log (its own rule, outboxRowsFor). */
function feederKeys(): Map<string, number> {
  const flights = new Map<string, FlightState>();
  const keys = new Map<string, number>();
  for (const e of events) {
    if (e.changes.length === 0) continue;
    const touched = applyDecision(flights, e);
    if (!isSentKind(e.kind)) continue;
    for (const r of outboxRowsFor({ ...e, changes: e.changes }, touched, flights, { tz: 'Asia/Shanghai', routes: [] })) {
      const k = `${r.target}|${r.sourcePosition}|${r.seq}|${r.flid ?? ''}`;
      keys.set(k, (keys.get(k) ?? 0) + 1);
    }
  }
  return keys;
}

describe('foldForCheck', () => {
  it('folds the flights the write model has, and implies exactly the outbox rows the feeder writes', async () => {
    const fold = await foldForCheck(pages(events), { flights: head, outbox: head }, { whole: true });
    expect(new Map([...fold.flights].sort())).toEqual(new Map([...log.flights].sort()));
    expect(fold.outbox.rows.size).toBeGreaterThan(200);
    expect(new Map([...fold.outbox.rows].sort())).toEqual(new Map([...feederKeys()].sort()));
  });

  it('keeps the flights as of the flights checkpoint and the outbox rows up to the outbox checkpoint', async () => {
    const fold = await foldForCheck(pages(events), { flights: '40', outbox: '10' }, { whole: true });
    const upTo40 = await foldForCheck(pages(events.slice(0, 40)), { flights: '40', outbox: '40' }, { whole: true });
    expect(fold.flights).toEqual(upTo40.flights);
    expect([...fold.outbox.rows.keys()].every((k) => Number(k.split('|')[1]) <= 10)).toBe(true);
    expect(fold.outbox.positions.length).toBeGreaterThan(0);
  });

  it('folds filtered changes (one flight) to the same state and implies the feeder’s rows of that flight', async () => {
    const flid = [...log.flights.values()].sort((a, b) => b.stateVersion - a.stateVersion)[0]!.flid;
    const filtered = events.flatMap((e): LogEvent[] => {
      const kept = e.changes.flatMap((c, i): [number, Change][] => ('flid' in c && c.flid === flid ? [[i, c]] : []));
      return kept.length === 0 ? [] : [{ ...e, changes: kept.map(([, c]) => c), indices: kept.map(([i]) => i) }];
    });
    const fold = await foldForCheck(pages(filtered), { flights: head, outbox: head }, { whole: false });
    expect([...fold.flights.keys()]).toEqual([flid]);
    expect(fold.flights.get(flid)).toEqual(log.flights.get(flid));
    // The feeder's rows for this flight, without their seq (which counts the whole decision's rows).
    const mine = new Map<string, number>();
    for (const [k, n] of feederKeys()) {
      if (!k.endsWith(`|${flid}`)) continue;
      const [target, position, , f] = k.split('|');
      const unnumbered = `${target}|${position}|*|${f}`;
      mine.set(unnumbered, (mine.get(unnumbered) ?? 0) + n);
    }
    expect(mine.size).toBeGreaterThan(3);
    expect(new Map([...fold.outbox.rows].sort())).toEqual(new Map([...mine].sort()));
  });
});

describe('compareFlight', () => {
  const state = [...log.flights.values()].find((f) => f.gates.length > 0 && f.currentStand !== null)!;

  it('names fields and lists by their GraphQL names, with the log value beside the row value', () => {
    const row: FlightState = { ...state, currentStand: 'Z9', counters: [...state.counters, { seq: 77, code: 'C77', class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }], gates: state.gates.slice(1) };
    const ms = compareFlight(state.flid, state, row);
    expect(ms).toContainEqual({ check: 'flights', flid: state.flid, field: 'currentStand', log: state.currentStand, row: 'Z9' });
    const counters = ms.find((m) => 'list' in m && m.list === 'checkInCounters');
    expect(counters).toMatchObject({ missing: [], extra: [{ seq: 77, code: 'C77' }] });
    const gates = ms.find((m) => 'list' in m && m.list === 'gates');
    expect(gates).toMatchObject({ missing: [state.gates[0]], extra: [] });
    expect(ms).toHaveLength(3);
    expect(describeMismatch(ms[0]!)).toBe(`flight ${state.flid}: currentStand: log ${JSON.stringify(state.currentStand)}, row "Z9"`);
  });

  it('reports a flight that exists on one side only, and nothing for equal states', () => {
    expect(compareFlight(state.flid, state, { ...state })).toEqual([]);
    expect(compareFlight(state.flid, state, undefined)).toEqual([{ check: 'flights', flid: state.flid, problem: 'missing-row' }]);
    expect(compareFlight(state.flid, undefined, state)).toEqual([{ check: 'flights', flid: state.flid, problem: 'not-in-log' }]);
  });
});

describe('nextDailyRun', () => {
  it('is the next HH:MM airport time strictly after now', () => {
    // 2025-03-14T00:00Z is 08:00 in Shanghai: 03:40 local is tomorrow, 19:40Z.
    expect(nextDailyRun(new Date('2025-03-14T00:00:00Z'), '03:40', 'Asia/Shanghai').toISOString()).toBe('2025-03-14T19:40:00.000Z');
    expect(nextDailyRun(new Date('2025-03-13T19:39:59Z'), '03:40', 'Asia/Shanghai').toISOString()).toBe('2025-03-13T19:40:00.000Z');
    expect(nextDailyRun(new Date('2025-03-13T19:40:00Z'), '03:40', 'Asia/Shanghai').toISOString()).toBe('2025-03-14T19:40:00.000Z');
    // Month end, and a zone with DST (New York, 2025-03-09 02:30 does not exist: moved forward).
    expect(nextDailyRun(new Date('2025-01-31T20:00:00Z'), '03:40', 'Asia/Shanghai').toISOString()).toBe('2025-02-01T19:40:00.000Z');
    expect(nextDailyRun(new Date('2025-03-09T05:00:00Z'), '02:30', 'America/New_York').toISOString()).toBe('2025-03-09T07:30:00.000Z');
  });
});

describe('msgx verify options', () => {
  const sel = (values: Parameters<typeof selectionOf>[0], pos: string[] = []) => selectionOf(values, pos);

  it('selects all by default, a sample, a day, named flights', () => {
    expect(sel({})).toEqual({ kind: 'all' });
    expect(sel({ all: true })).toEqual({ kind: 'all' });
    expect(sel({ sample: '0.01' })).toEqual({ kind: 'sample', ratio: 0.01 });
    expect(sel({ sample: '0.5', day: '2025-03-14' })).toEqual({ kind: 'sample', ratio: 0.5, day: '2025-03-14' });
    expect(sel({ day: '2025-03-14' })).toEqual({ kind: 'day', day: '2025-03-14' });
    expect(sel({ flight: ['00042'] }, ['7'])).toEqual({ kind: 'flights', flids: ['42', '7'] });
  });

  it('refuses bad usage (exit 2)', () => {
    for (const [values, pos] of [
      [{ all: true, sample: '0.1' }, []],
      [{ sample: '0' }, []],
      [{ sample: '1.5' }, []],
      [{ sample: 'x' }, []],
      [{ day: '2025-02-30' }, []],
      [{ day: '2025-03-14', all: true }, []],
      [{ flight: ['12a'] }, []],
      [{}, ['42']],
    ] as [Parameters<typeof selectionOf>[0], string[]][]) {
      expect(() => sel(values, pos), JSON.stringify(values)).toThrow(UsageError);
    }
  });
});
