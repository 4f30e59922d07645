import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/domain/changes.ts';
import { applyDecision } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import type { DecisionEvent } from '../../src/log/readDecisions.ts';
import { outboxRowsFor } from '../../src/projections/decisionOutbox.ts';
import { decideMessages } from './support/corpus.ts';
import { readScenario } from '../support/corpusDir.ts';

describe('outboxRowsFor: AIDX rows (docs/delivery.md "AIDX")', () => {
  const { decisions } = decideMessages(readScenario('01-plan-and-operations').files.slice(0, 1).map((f) => f.xml));
  const changes = decisions[0]!.payload.changes as Change[];
  const event: DecisionEvent & { changes: readonly Change[] } = { position: '12', msgId: '1', kind: 'Applied', changes, recordedAt: '2025-03-14T00:00:02.000Z' };
  const flights = new Map<string, FlightState>();
  const touched = applyDecision(flights, event);

  it('none with the target off', () => {
    expect(outboxRowsFor(event, touched, flights, { tz: 'Asia/Shanghai', routes: [] }).filter((r) => r.target === 'AIDX')).toEqual([]);
  });

  it('one per touched flight whose leg can be named, seq from 0 in touched order, SequenceNmbr = position; the others reported with their reason', () => {
    const skipped: [string, string][] = [];
    const rows = outboxRowsFor(event, touched, flights, {
      tz: 'Asia/Shanghai', routes: [], aidx: { airport: 'XXX', originator: 'MSGX' }, onAidxSkip: (flid, reason) => skipped.push([flid, reason]),
    }).filter((r) => r.target === 'AIDX');
    expect(rows.length + skipped.length).toBe(touched.size);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i));
    expect(rows.map((r) => r.flid)).toEqual([...touched].filter((f) => !skipped.some(([s]) => s === f)));
    for (const r of rows) expect((r.payload as { xml: string }).xml).toContain('SequenceNmbr="12"');
    // 880003 (MU5123) has no ROUT or ERUT: no other airport, no message.
    expect(skipped).toEqual([['880003', 'no-other-airport']]);
  });
});
