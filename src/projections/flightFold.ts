/**
 * The flight projection's core, shared by the live projector and the rebuild: fold events into a
 * map of flights with the domain's `applyDecision` (the one definition of what a change does),
 * remember which flights and plan snapshots must be written, then write them.
 */
import { isFlightChange } from '../domain/changes.ts';
import type { FlightState } from '../domain/flight.ts';
import { applyDecisionSteps, type FoldOwnership } from '../domain/evolve.ts';
import { runSteps, type Steps } from '../domain/steps.ts';
import type { Queryable } from '../platform/db.ts';
import { appliedEvent, hasChanges, type DecisionEvent } from '../log/readDecisions.ts';
import type { FlightTables } from '../readModel/flightTables.ts';
import { insertSnapshots, snapshotRow, type SnapshotRow } from './snapLog.ts';
import { removeFlights, writeFlights, type StoredFlights } from './writeFlights.ts';

export interface PendingWrites {
  /** Flights touched since the last flush: written if still in the map, removed if not (archived). */
  readonly dirty: Set<string>;
  readonly snapshots: SnapshotRow[];
}

export const emptyPending = (): PendingWrites => ({ dirty: new Set(), snapshots: [] });

/** Every flid the events' changes name (flight changes and archived flights). */
export function referencedFlids(events: readonly DecisionEvent[]): string[] {
  const out = new Set<string>();
  for (const e of events) {
    for (const c of e.changes ?? []) {
      if (c.type === 'FlightsArchived') for (const f of c.flids) out.add(f);
      else if (isFlightChange(c)) out.add(c.flid);
    }
  }
  return [...out];
}

/** `own`: the fold owns its states and edits them in place (FoldOwnership, src/domain/evolve.ts). */
export function foldEvents(flights: Map<string, FlightState>, events: readonly DecisionEvent[], pending: PendingWrites, own?: FoldOwnership): void {
  runSteps(foldEventsSteps(flights, events, pending, own));
}

/** `foldEvents` in steps (src/domain/steps.ts): the live projector folds a plan's decision a slice at a time. */
export function* foldEventsSteps(
  flights: Map<string, FlightState>,
  events: readonly DecisionEvent[],
  pending: PendingWrites,
  own?: FoldOwnership,
): Steps<void> {
  for (const e of events) {
    if (!hasChanges(e)) continue;
    for (const flid of yield* applyDecisionSteps(flights, appliedEvent(e), own)) pending.dirty.add(flid);
    for (const c of e.changes) if (c.type === 'PlanSnapshotApplied') pending.snapshots.push(snapshotRow(e, c));
  }
}

/**
 * How a chunk of flights is written (writeFlights by default; a rebuild copies a flight it has not
 * written before: rebuild/scratchWrites.ts). The statements it sends on `q` run in order there
 * while node builds the next chunk.
 */
export type FlightWriter<Q extends Queryable = Queryable> = (
  q: Q,
  tables: FlightTables,
  flights: readonly FlightState[],
  stored: StoredFlights,
) => Promise<void>;

/**
 * Write what `pending` names, `chunk` flights per statement set; empties `pending`. Returns flights
 * written. `lanes`: further connections that write chunks beside `q` (a rebuild's scratch tables,
 * outside any transaction); `q` alone when absent. On each connection one chunk's statements run
 * while node builds the next. `turn`: awaited after each chunk (the live projector's slicing, src/platform/slicing.ts).
 * `stored`: the flights that may already have rows (writeFlights.ts), all by default. `write`: how
 * each chunk is written.
 */
export async function flushPending<Q extends Queryable>(
  q: Q,
  tables: FlightTables,
  flights: ReadonlyMap<string, FlightState>,
  pending: PendingWrites,
  chunk = 2000,
  lanes: readonly Q[] = [],
  turn?: () => Promise<void>,
  stored: StoredFlights = 'all',
  write: FlightWriter<Q> = writeFlights,
): Promise<number> {
  // Flids, not states: a chunk's states are looked up as it is built, so a LazyMap (a rebuild
  // from a snapshot) decodes a day's flights beside the write of the chunk before.
  const present: string[] = [];
  const gone: string[] = [];
  for (const flid of pending.dirty) (flights.has(flid) ? present : gone).push(flid);
  await removeFlights(q, tables, gone);
  let next = 0;
  const lane = async (c: Q): Promise<void> => {
    // A chunk is built while the one before it runs: the connection runs their statements in order.
    let running: Promise<void> = Promise.resolve();
    for (let i = next; i < present.length; i = next) {
      next = i + chunk;
      let states: FlightState[];
      try {
        states = present.slice(i, i + chunk).map((flid) => flights.get(flid)!);
      } catch (err) {
        await running.catch(() => undefined); // a snapshot's day that cannot be decoded: this lane's last statement ends first
        throw err;
      }
      const written = write(c, tables, states, stored);
      written.catch(() => undefined); // awaited below; no unhandled rejection meanwhile
      const [before] = await Promise.allSettled([running]);
      running = written;
      if (before.status === 'rejected') {
        await written.catch(() => undefined); // this lane's last statement ends before the failure is thrown
        throw before.reason;
      }
      if (turn) await turn();
    }
    await running;
  };
  // Every lane ends before a failure is thrown, so no connection is handed back mid-statement.
  const ends = await Promise.allSettled([q, ...lanes].map(lane));
  const failed = ends.find((e) => e.status === 'rejected');
  if (failed) throw failed.reason;
  await insertSnapshots(q, tables.snapLog, pending.snapshots);
  pending.dirty.clear();
  pending.snapshots.length = 0;
  return present.length;
}
