import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/domain/changes.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { toFlightView } from '../../src/domain/flightView.ts';
import type { DecisionEvent } from '../../src/log/readDecisions.ts';
import { outboxRowsFor } from '../../src/projections/decisionOutbox.ts';
import { decideMessages } from './support/corpus.ts';
import { readScenario } from '../support/corpusDir.ts';

const dnld = readScenario('03-plan-snapshots').files[2]!.xml; // DNLD today again: an update, a delete, a summary

const RULES = { tz: 'Asia/Shanghai', routes: [] };

describe('outboxRowsFor', () => {
  const start = decideMessages(readScenario('03-plan-snapshots').files.slice(0, 2).map((f) => f.xml));
  const { decisions } = decideMessages([dnld], { flights: new Map(start.flights), firstMsgId: 3, firstPosition: 3 });
  const changes = decisions[0]!.payload.changes as Change[];
  const event: DecisionEvent & { changes: readonly Change[] } = {
    position: '3', msgId: '3', kind: 'Applied', changes, recordedAt: '2025-03-14T00:00:02.000Z',
  };
  const flights = new Map<string, FlightState>(start.flights);
  const touched = applyDecision(flights, event);

  it('gives one KAFKA_MSG per change in order, keyless for the snapshot summary', () => {
    const rows = outboxRowsFor(event, touched, flights, RULES);
    const msg = rows.filter((r) => r.target === 'KAFKA_MSG');
    expect(msg.map((r) => [r.seq, r.flid, (r.payload as { type: string }).type])).toEqual(
      changes.map((c, i) => [i, c.type === 'PlanSnapshotApplied' ? null : (c as { flid: string }).flid, c.type]),
    );
    expect(changes.at(-1)!.type).toBe('PlanSnapshotApplied');
    expect(msg[0]!.headers).toEqual({ msgId: '3', position: '3' });
  });

  it('shows every instant of a KAFKA_MSG payload with the airport offset, as the API does', () => {
    const msg = outboxRowsFor(event, touched, flights, RULES).filter((r) => r.target === 'KAFKA_MSG');
    expect(msg.map((r) => (r.payload as { recordedAt: string }).recordedAt)).toEqual(msg.map(() => '2025-03-14T08:00:02+08:00'));
    const summary = msg.at(-1)!.payload as { change: { windowStart: string; windowEnd: string } };
    expect(summary.change.windowStart).toMatch(/^2025-03-1\dT\d\d:\d\d:00\+08:00$/);
    expect(Date.parse(summary.change.windowStart)).toBe(Date.parse((changes.at(-1) as { windowStart: string }).windowStart));
    expect(JSON.stringify(msg.map((r) => r.payload))).not.toMatch(/"\d{4}-\d{2}-\d{2}T[\d:.]+Z"/);
  });

  it('gives one KAFKA_SCHD per touched flight with its view after the decision', () => {
    const schd = outboxRowsFor(event, touched, flights, RULES).filter((r) => r.target === 'KAFKA_SCHD');
    expect(schd.map((r) => r.flid)).toEqual([...touched]);
    expect(schd.map((r) => r.seq)).toEqual([...touched].map((_, i) => i));
    for (const r of schd) expect(r.payload).toEqual(toFlightView(flights.get(r.flid!)!, { tz: RULES.tz }));
    expect(schd.some((r) => (r.payload as { deleted: boolean }).deleted)).toBe(true); // 882002 deleted by the snapshot
  });

  it('omits msgId from headers for decisions without a message, and routes to COUTMSGS only when asked', () => {
    const rows = outboxRowsFor({ ...event, msgId: null }, touched, flights, {
      ...RULES,
      routes: [({ change }) => (change.type === 'FlightDeleted' ? { clobMsg: `deleted ${change.flid}` } : null), () => null],
    });
    expect(rows[0]!.headers).toEqual({ position: '3' });
    expect(rows.filter((r) => r.target === 'COUTMSGS').map((r) => [r.seq, r.flid, r.payload])).toEqual([
      [0, '882002', { clobMsg: 'deleted 882002' }],
    ]);
  });
});
