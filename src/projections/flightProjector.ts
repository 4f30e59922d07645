/**
 * The live flight projector ('flights'): for each batch it loads the flights the batch names from
 * the read-model rows, folds the batch with applyDecision and writes the touched flights back —
 * all inside the batch transaction. It keeps no state between batches, so a rebuild's table swap
 * or another instance's progress can never leave it with a stale cache. The flights are written
 * `slicing.every` at a time with a turn of the event loop after each chunk, and folded in slices of
 * DEFAULT_TIME_SLICING's length with the same turns between them, so a plan of 21,000
 * flights never holds the writer's loop for long (docs/projections.md "Big decisions").
 *
 * In the writer it may also be given the pump's fold (`shared`, as the outbox feeder is): a decision
 * whose flights that fold holds as of that very decision (their last change is it) takes them from
 * there instead of loading and folding them again — for a plan snapshot, 3,000 states not built a
 * second time (docs/projections.md "Flight projector"). Those flights are not read back; one
 * statement tells which of them have rows (writeFlights.ts deletes their detail rows first).
 */
import type { FlightState } from '../domain/flight.ts';
import type { Steps } from '../domain/steps.ts';
import type { PoolClient } from '../platform/db.ts';
import { hasChanges, type DecisionEvent } from '../log/readDecisions.ts';
import { emptyPending, flushPending, foldEventsSteps, referencedFlids, type PendingWrites } from './flightFold.ts';
import { LIVE_TABLES, type FlightTables } from '../readModel/flightTables.ts';
import { loadFlights, storedFlids } from './loadFlights.ts';
import type { Projector } from './projector.ts';
import { FLIGHTS_PROJECTOR } from '../readModel/projectorNames.ts';
import { DEFAULT_SLICING, DEFAULT_TIME_SLICING, runSliced, type Slicing } from '../platform/slicing.ts';
import { snapshotRow } from './snapLog.ts';

/** Another fold of the same log in this process (the pump's write model); its states are replaced, never edited. */
export interface FlightsFold {
  readonly flights: ReadonlyMap<string, FlightState>;
}

export function createFlightProjector(tables: FlightTables = LIVE_TABLES, slicing: Slicing = DEFAULT_SLICING, shared?: FlightsFold): Projector {
  return {
    name: FLIGHTS_PROJECTOR,
    async apply(client: PoolClient, events: readonly DecisionEvent[]) {
      const taken = adoptable(events, shared?.flights);
      const folded = taken.size === 0 ? events : events.filter((e) => !taken.has(e));
      const flights = await loadFlights(client, referencedFlids(folded), tables);
      // Only the flights read back have rows to replace; the others are new (writeFlights.ts).
      const stored = new Set(flights.keys());
      const unread = [...new Set([...taken.values()].flatMap((states) => states.map((f) => f.flid)))].filter((flid) => !stored.has(flid));
      for (const flid of await storedFlids(client, unread, tables)) stored.add(flid);
      const pending = emptyPending();
      // Folded a slice of time at a time too: a plan's decision is 21,000–70,000 changes.
      await runSliced(foldOrTake(flights, events, pending, taken), { ...DEFAULT_TIME_SLICING, turn: () => slicing.turn() });
      await flushPending(client, tables, flights, pending, slicing.every, [], () => slicing.turn(), stored);
    },
  };
}

/**
 * The events whose flights `other` holds as of that very event (every flight it names is there and
 * its last change is the event), with those states — taken now, before the first await: the other
 * fold moves on meanwhile. A flight archived since, or changed again, is not: its event is folded here.
 */
function adoptable(events: readonly DecisionEvent[], other: ReadonlyMap<string, FlightState> | undefined): Map<DecisionEvent, FlightState[]> {
  const out = new Map<DecisionEvent, FlightState[]>();
  if (!other) return out;
  for (const e of events) {
    if (!hasChanges(e)) continue;
    const names = referencedFlids([e]);
    const states: FlightState[] = [];
    for (const flid of names) {
      const theirs = other.get(flid);
      if (theirs?.lastPosition !== e.position) break;
      states.push(theirs);
    }
    if (states.length > 0 && states.length === names.length) out.set(e, states);
  }
  return out;
}

/** foldEventsSteps, with the flights of a `taken` event set to the states taken instead of folded. */
function* foldOrTake(
  flights: Map<string, FlightState>,
  events: readonly DecisionEvent[],
  pending: PendingWrites,
  taken: ReadonlyMap<DecisionEvent, readonly FlightState[]>,
): Steps<void> {
  if (taken.size === 0) return yield* foldEventsSteps(flights, events, pending);
  for (const e of events) {
    const states = taken.get(e);
    if (states === undefined) {
      yield* foldEventsSteps(flights, [e], pending);
      continue;
    }
    for (const state of states) {
      flights.set(state.flid, state);
      pending.dirty.add(state.flid);
    }
    for (const c of e.changes ?? []) if (c.type === 'PlanSnapshotApplied') pending.snapshots.push(snapshotRow(e, c));
  }
}
