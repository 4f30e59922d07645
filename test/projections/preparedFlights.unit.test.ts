/**
 * Flight rows made ahead of the flight projector (src/projections/preparedFlights.ts): the rows of
 * the very state object, taken once; any other state's rows are made when asked; a stop or a
 * clear leaves the rest to be made then.
 */
import { describe, expect, it } from 'vitest';
import { PREPARED_MAX, PreparedFlights } from '../../src/projections/preparedFlights.ts';
import { makeFlightRows } from '../../src/projections/writeFlights.ts';
import { runSteps } from '../../src/domain/steps.ts';
import { decideMessages } from './support/corpus.ts';
import { syntheticMessages } from './support/synthetic.ts';

const flights = decideMessages(syntheticMessages({ days: 1, flightsPerDay: 40, opsPerDay: 120 })).flights;
const flids = [...flights.keys()];

describe('PreparedFlights', () => {
  it('hands out the rows made for a state once, equal to the rows made now; a copy of the state gets its own', () => {
    const prepared = new PreparedFlights();
    expect(runSteps(prepared.prepare(flids, flights, () => false))).toBe(flids.length);
    for (const flid of flids) {
      const state = flights.get(flid)!;
      const ahead = prepared.take(state);
      expect(ahead).toEqual(makeFlightRows(state));
      expect(prepared.take(state)).not.toBe(ahead); // taken once: made again when asked again
      expect(prepared.take({ ...state })).toEqual(ahead);
    }
  });

  it('stops when told to, and forgets what it made on clear', () => {
    const prepared = new PreparedFlights();
    let asked = 0;
    expect(runSteps(prepared.prepare(flids, flights, () => ++asked > 3))).toBe(3);
    const first = flights.get(flids[0]!)!;
    const made = prepared.take(first);
    runSteps(prepared.prepare(flids, flights, () => false));
    prepared.clear();
    const second = flights.get(flids[1]!)!;
    expect(prepared.take(second)).toEqual(makeFlightRows(second));
    expect(made).toEqual(makeFlightRows(first));
  });

  it(`holds the rows of ${PREPARED_MAX} flights at most until it is cleared`, () => {
    const prepared = new PreparedFlights();
    const many = new Map([...Array(PREPARED_MAX + 10).keys()].map((i) => [String(i), { ...flights.get(flids[i % flids.length]!)!, flid: String(i) }]));
    expect(runSteps(prepared.prepare([...many.keys()], many, () => false))).toBe(PREPARED_MAX);
    prepared.clear();
    expect(runSteps(prepared.prepare([...many.keys()].slice(0, 5), many, () => false))).toBe(5);
  });
});
