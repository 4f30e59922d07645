/**
 * Read-model rows of flights made ahead of the flight projector (docs/projections.md "Big
 * decisions"): while the pump's commit of a plan snapshot runs in PostgreSQL, the writer's loop
 * has nothing else to do, and the projector will write every flight of the plan right after that
 * commit. The rows (flight_schd with its document, the detail rows) are a function of the state
 * alone (flightRows.ts), and states are replaced, never edited, so rows made from a state object
 * are that state's rows whenever they are used: the projector takes them instead of making them
 * again, and makes the rest itself.
 *
 * Held by state object (a WeakMap) and dropped once the projector has written a batch (`clear`),
 * so at most one plan's rows wait here (PREPARED_MAX flights), and only those made within one commit.
 */
import type { FlightState } from '../domain/flight.ts';
import type { Steps } from '../domain/steps.ts';
import { makeFlightRows, type FlightRows } from './writeFlights.ts';

/** Flights per step of `prepare` (~0.1 ms each). */
const PER_STEP = 16;

/**
 * Most flights whose rows wait here at once (~5 kB each with the document): a plan of 21,000
 * flights, whose commit takes seconds, does not hold 100 MB of rows; beyond them the projector
 * makes the rows as it writes, as before.
 */
export const PREPARED_MAX = 4000;

export class PreparedFlights {
  private made = new WeakMap<FlightState, FlightRows>();
  /** Rows made since the last clear (taken or not). */
  private count = 0;

  /** The rows of `f`: those made ahead for this very state object (and forgotten here), else made now. */
  take(f: FlightState): FlightRows {
    const ahead = this.made.get(f);
    if (ahead === undefined) return makeFlightRows(f);
    this.made.delete(f);
    return ahead;
  }

  /**
   * Make the rows of the states `flights` holds for `flids`, PER_STEP flights a step (src/domain/steps.ts),
   * until `stop()` says to (the projector is about to write them itself).
   */
  *prepare(flids: readonly string[], flights: ReadonlyMap<string, FlightState>, stop: () => boolean): Steps<number> {
    let made = 0;
    for (const flid of flids) {
      if (stop() || this.count >= PREPARED_MAX) break;
      const f = flights.get(flid);
      if (f === undefined || this.made.has(f)) continue;
      this.made.set(f, makeFlightRows(f));
      made += 1;
      this.count += 1;
      // A few milliseconds a step: the commit's answer waits for one step at most.
      if (made % PER_STEP === 0) yield;
    }
    return made;
  }

  /** Forget every row made ahead (after a batch: what it did not take is not wanted). */
  clear(): void {
    this.made = new WeakMap();
    this.count = 0;
  }
}
