/**
 * Every scenario of the conformance corpus, folded without a database: message outcomes and the
 * flight expectations of expect.json.
 */
import { describe, expect, it } from 'vitest';
import { toFlightView } from '../../src/domain/flightView.ts';
import { activeScenarioNames, isPendingOutcome, readScenario } from '../support/corpusDir.ts';
import { foldMessages } from './support/foldMessages.ts';
import { mismatches } from '../support/matchExpected.ts';

const TZ = 'Asia/Shanghai';
const scenarios = activeScenarioNames().map((name) => readScenario(name));

describe('conformance corpus (domain fold, no database)', () => {
  it('finds the scenarios', () => {
    expect(scenarios.map((s) => s.name)).toEqual(
      expect.arrayContaining(['01-plan-and-operations', '02-bad-input-and-duplicates', '03-plan-snapshots']),
    );
  });

  describe.each(scenarios.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    for (const includeDay of [false, true]) {
      describe(`identity ${includeDay ? 'with' : 'without'} day`, () => {
        const { flights, outcomes } = foldMessages(scenario.files.map((f) => f.xml), { tz: TZ, includeDay });

        it('has one expectation per message file, in order', () => {
          expect(scenario.expect.messages.map((m) => m.file)).toEqual(scenario.files.map((f) => f.name));
        });

        const checked = scenario.expect.messages.flatMap((m, i) => (isPendingOutcome(scenario.name, m.file) ? [] : [[m.file, m, i] as const]));
        it.each(checked)('message %s', (_file, want, i) => {
          const got = outcomes[i]!;
          expect(got.state).toBe(want.state);
          if (want.errorClass !== undefined) expect(got.errorClass).toBe(want.errorClass);
          if (want.lastErrorContains !== undefined) expect(got.lastError ?? '').toContain(want.lastErrorContains);
        });

        it.each(Object.entries(scenario.expect.flights ?? {}))('flight %s', (flid, want) => {
          const state = flights.get(flid);
          expect(state, `flight ${flid} exists`).toBeDefined();
          expect(mismatches(want, toFlightView(state!))).toEqual([]);
        });

        it('absent flights are absent', () => {
          for (const flid of scenario.expect.absentFlights ?? []) expect(flights.has(flid)).toBe(false);
        });
      });
    }
  });
});
