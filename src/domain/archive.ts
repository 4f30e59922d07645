/**
 * History sweep (an operator decision, docs/contract/design.md §5.8 and §11): which flights leave the state. The
 * change is appended like any decision and applied by `applyDecision`, which removes the flights.
 *
 * Its "today" is traffic time, never the wall clock: the latest operation day the log has seen
 * (the largest `operationDay` of any `FlightCreated`), so the same log always gives the same
 * sweeps, however often msgx restarts and whatever the date on the machine.
 */
import type { Change, FlightsArchived } from './changes.ts';
import type { FlightState } from './flight.ts';
import { compareFlids } from './flid.ts';

/** Flids per FlightsArchived change (one decision each). */
export const SWEEP_CHUNK = 1000;

/**
 * A map of flights that may tell a flight's operation day without its whole state: the write
 * model, whose older days stay undecoded in its snapshot until used (docs/recovery.md "Start cost").
 */
export type FlightMap = ReadonlyMap<string, FlightState> & { operationDayOf?(flid: string): string | undefined };

/** A flight's operation day: from the map's own index when it has one, else from its state. */
export const operationDayOf = (flights: FlightMap, flid: string): string | undefined =>
  flights.operationDayOf ? flights.operationDayOf(flid) : flights.get(flid)?.operationDay;

/** Flights whose operation day is before `beforeDay` (YYYY-MM-DD); null when there are none. */
export function archiveBefore(flights: FlightMap, beforeDay: string): FlightsArchived | null {
  const flids = [...flights.keys()].filter((flid) => {
    const day = operationDayOf(flights, flid);
    return day !== undefined && day < beforeDay;
  }).sort(compareFlids);
  return flids.length > 0 ? { type: 'FlightsArchived', flids, beforeDay } : null;
}

/** The latest operation day after `changes`: `latest`, or a later day one of them created a flight on. */
export function latestDayAfter(latest: string | null, changes: readonly Change[]): string | null {
  let day = latest;
  for (const c of changes) if (c.type === 'FlightCreated' && (day === null || c.operationDay > day)) day = c.operationDay;
  return day;
}

/** The first day that is kept: `latestDay` minus `keepDays` (calendar days, YYYY-MM-DD). */
export function sweepCutoff(latestDay: string, keepDays: number): string {
  const [y, m, d] = latestDay.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - keepDays)).toISOString().slice(0, 10);
}

/**
 * The sweep owed after a decision that moved the latest operation day from `before` to `after`
 * (nothing when it did not move): the flights of days before `after − keepDays`, in chunks of
 * SWEEP_CHUNK flids. Pure: the pump appends these right behind that decision, in the same
 * transaction, so a crash can never separate them.
 */
export function sweepOnAdvance(
  flights: FlightMap,
  before: string | null,
  after: string | null,
  keepDays: number,
): FlightsArchived[] {
  if (after === null || after === before) return [];
  return chunked(archiveBefore(flights, sweepCutoff(after, keepDays)));
}

/**
 * `sweepOnAdvance` of `flights` as they will be once `changes` (one decision) are folded into them,
 * without folding them: which flights exist, and their days, follow from the changes alone (a
 * FlightCreated makes a flight on its day unless it exists, when it keeps its first day: invariant
 * 9; FlightsArchived removes). The pump commits a big decision and its sweeps while it folds it
 * (docs/projections.md "Big decisions"). Equal to sweepOnAdvance after applyDecision (archiveSweep.unit).
 */
export function sweepOnAdvanceAfter(
  flights: FlightMap,
  changes: readonly Change[],
  before: string | null,
  after: string | null,
  keepDays: number,
): FlightsArchived[] {
  if (after === null || after === before) return [];
  const added = new Map<string, string>();
  const removed = new Set<string>();
  const exists = (flid: string) => added.has(flid) || (!removed.has(flid) && flights.has(flid));
  for (const c of changes) {
    if (c.type === 'FlightsArchived') {
      for (const flid of c.flids) {
        added.delete(flid);
        removed.add(flid);
      }
    } else if (c.type === 'FlightCreated' && !exists(c.flid)) {
      added.set(c.flid, c.operationDay);
    }
  }
  const beforeDay = sweepCutoff(after, keepDays);
  const flids: string[] = [];
  for (const flid of flights.keys()) {
    if (removed.has(flid) || added.has(flid)) continue;
    const day = operationDayOf(flights, flid);
    if (day !== undefined && day < beforeDay) flids.push(flid);
  }
  for (const [flid, day] of added) if (day < beforeDay) flids.push(flid);
  return chunked(flids.length > 0 ? { type: 'FlightsArchived', flids: flids.sort(compareFlids), beforeDay } : null);
}

/** One sweep as FlightsArchived changes of SWEEP_CHUNK flids each. */
function chunked(all: FlightsArchived | null): FlightsArchived[] {
  if (!all) return [];
  const out: FlightsArchived[] = [];
  for (let i = 0; i < all.flids.length; i += SWEEP_CHUNK) {
    out.push({ type: 'FlightsArchived', flids: all.flids.slice(i, i + SWEEP_CHUNK), beforeDay: all.beforeDay });
  }
  return out;
}
