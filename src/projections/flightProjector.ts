/**
 * The live flight projector ('flights'): for each batch it loads the flights the batch names from
 * the read-model rows, folds the batch with applyDecision and writes the touched flights back —
 * all inside the batch transaction. It keeps no state between batches, so a rebuild's table swap
 * or another instance's progress can never leave it with a stale cache. The flights are written
 * `slicing.every` at a time with a turn of the event loop after each chunk, and folded in slices of
 * DEFAULT_TIME_SLICING's length with the same turns between them, so a plan of 21,000
 * flights never holds the writer's loop for long (docs/projections.md "Big decisions").
 */
import type { PoolClient } from '../platform/db.ts';
import type { DecisionEvent } from '../log/readDecisions.ts';
import { emptyPending, flushPending, foldEventsSteps, referencedFlids } from './flightFold.ts';
import { LIVE_TABLES, type FlightTables } from '../readModel/flightTables.ts';
import { loadFlights } from './loadFlights.ts';
import type { Projector } from './projector.ts';
import { FLIGHTS_PROJECTOR } from '../readModel/projectorNames.ts';
import { DEFAULT_SLICING, DEFAULT_TIME_SLICING, runSliced, type Slicing } from '../platform/slicing.ts';

export function createFlightProjector(tables: FlightTables = LIVE_TABLES, slicing: Slicing = DEFAULT_SLICING): Projector {
  return {
    name: FLIGHTS_PROJECTOR,
    async apply(client: PoolClient, events: readonly DecisionEvent[]) {
      const flights = await loadFlights(client, referencedFlids(events), tables);
      // Only the flights read back have rows to replace; the others are new (writeFlights.ts).
      const stored = new Set(flights.keys());
      const pending = emptyPending();
      // Folded a slice of time at a time too: a plan's decision is 21,000–70,000 changes.
      await runSliced(foldEventsSteps(flights, events, pending), { ...DEFAULT_TIME_SLICING, turn: () => slicing.turn() });
      await flushPending(client, tables, flights, pending, slicing.every, [], () => slicing.turn(), stored);
    },
  };
}
