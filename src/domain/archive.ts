/**
 * History sweep (an operator decision, docs/contract/system.md §5.8): which flights leave the state. The change
 * is appended like any decision and applied by `applyDecision`, which removes the flights.
 */
import type { FlightsArchived } from './changes.ts';
import type { FlightState } from './flight.ts';
import { compareFlids } from './flid.ts';

/** Flights whose operation day is before `beforeDay` (YYYY-MM-DD); null when there are none. */
export function archiveBefore(flights: ReadonlyMap<string, FlightState>, beforeDay: string): FlightsArchived | null {
  const flids = [...flights.values()].filter((f) => f.operationDay < beforeDay).map((f) => f.flid).sort(compareFlids);
  return flids.length > 0 ? { type: 'FlightsArchived', flids, beforeDay } : null;
}
