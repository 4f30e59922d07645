/**
 * Work in steps (src/domain/steps.ts, docs/projections.md "Big decisions"): the pump decides, folds
 * and writes out a big plan a slice at a time (src/platform/slicing.ts `runSliced`), the projectors
 * fold and read it back the same way. Sliced or at one go, the value is the same: the decision, the
 * folded flights, the stored payload's text (byte for byte what the append sent before) and the
 * expanded changes — and the sliced run turned the event loop between its slices.
 */
import { describe, expect, it } from 'vitest';
import { compactChanges, expandChanges, expandChangesSteps } from '../../src/domain/compactChange.ts';
import { decide, decideSteps } from '../../src/domain/decide.ts';
import { applyDecision, applyDecisionSteps } from '../../src/domain/evolve.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { appendValues, storedPayloadText } from '../../src/log/appendDecisions.ts';
import { runSliced } from '../../src/platform/slicing.ts';
import { decisionOf } from '../../src/write/pump/commitDecisions.ts';
import { fltr, schdXml } from './support/buildXml.ts';
import { decodeOk } from './support/decodeOk.ts';

const TODAY = { dttm: '20250314020000' };
const RECORDS = 1_500;

function plan(from: number, n: number, styp: 'DNLD' | 'ADFT'): string {
  const records = Array.from({ length: n }, (_, i) => {
    const hh = String(i % 24).padStart(2, '0');
    const extra = i % 3 === 0 ? '<ALCD>ZH</ALCD><FLNO>ZH1</FLNO><GTDT GTNO="1"><GATE>G1</GATE></GTDT>' : i % 3 === 1 ? '<MVIN>A</MVIN>' : '';
    return fltr(String(from + i), `14MAR25${hh}${String(i % 60).padStart(2, '0')}`, extra);
  });
  return schdXml(styp, records, TODAY);
}

/** A slicing that turns after every step, counting its turns. */
function everyStep() {
  const counted = { turns: 0 };
  return { counted, slicing: { sliceMs: 0, turn: async () => { counted.turns += 1; } } };
}

/** Flights after a first plan, so that the second one creates, updates and deletes. */
function before(): Map<string, FlightState> {
  const flights = new Map<string, FlightState>();
  const first = decide(flights, decodeOk(plan(1000, RECORDS, 'ADFT')), undefined, { msgId: '1' });
  applyDecision(flights, { position: '1', msgId: '1', recordedAt: '2025-03-14T02:00:00.000Z', changes: first.changes });
  return flights;
}

describe('a plan in steps', () => {
  const flights = before();
  const message = decodeOk(plan(1500, RECORDS, 'DNLD'));

  it('is decided the same, sliced or at one go', async () => {
    const { counted, slicing } = everyStep();
    const sliced = await runSliced(decideSteps(flights, message, undefined, { msgId: '2' }), slicing);
    const whole = decide(flights, message, undefined, { msgId: '2' });
    expect(JSON.stringify(sliced.value)).toBe(JSON.stringify(whole));
    expect(whole.changes.some((c) => c.type === 'FlightDeleted')).toBe(true);
    expect(counted.turns).toBeGreaterThan(2);
  });

  it('is folded the same, sliced or at one go', async () => {
    const { changes } = decide(flights, message, undefined, { msgId: '2' });
    const event = { position: '2', msgId: '2', recordedAt: '2025-03-14T03:00:00.000Z', changes };
    const a = new Map(flights);
    const b = new Map(flights);
    const { counted, slicing } = everyStep();
    const touched = (await runSliced(applyDecisionSteps(a, event), slicing)).value;
    expect([...touched]).toEqual([...applyDecision(b, event)]);
    expect(JSON.stringify([...a])).toBe(JSON.stringify([...b]));
    expect(counted.turns).toBeGreaterThan(2);
  });

  it('is stored as the same text, written in steps or at once', async () => {
    const outcome = decide(flights, message, undefined, { msgId: '2' });
    const decision = decisionOf('2', { ...outcome, kind: 'Applied', identity: null, meta: null });
    const { counted, slicing } = everyStep();
    const storedText = (await runSliced(storedPayloadText(decision), slicing)).value;
    const at = new Date('2025-03-14T03:00:00Z');
    expect(appendValues('1', [{ ...decision, storedText }], at)).toEqual(appendValues('1', [decision], at));
    expect(counted.turns).toBeGreaterThan(2);
  });

  it('is read back the same, expanded in steps or at once', async () => {
    const { changes } = decide(flights, message, undefined, { msgId: '2' });
    const stored = JSON.parse(JSON.stringify(compactChanges(changes)));
    const { counted, slicing } = everyStep();
    expect((await runSliced(expandChangesSteps(stored), slicing)).value).toEqual(expandChanges(stored));
    expect(counted.turns).toBeGreaterThan(2);
  });
});
