import { changesOf } from '../../domain/decisionPayload.ts';
import { applyDecision } from '../../domain/evolve.ts';
import type { FlightState } from '../../domain/flight.ts';
import type { Queryable } from '../../platform/db.ts';
import { selectFlightDecisionsUntil } from '../../log/readForMessages.ts';

/**
 * Time travel: the flight as it was at `asOf`, folded from the decisions that touched it and were
 * recorded at or before that instant, through the same applyDecision as the pump and projectors.
 * null when the flight did not exist then (or had been archived).
 */
export async function flightAsOf(q: Queryable, flid: string, asOf: string): Promise<FlightState | null> {
  const flights = new Map<string, FlightState>();
  for (const d of await selectFlightDecisionsUntil(q, flid, asOf)) {
    // Only this flight's changes (and flight-less ones such as FlightsArchived): a plan snapshot
    // carries thousands of other flights that would be folded for nothing.
    const mine = changesOf(d).filter((c) => !('flid' in c) || c.flid === flid);
    if (mine.length === 0) continue;
    applyDecision(flights, { position: d.position, msgId: d.msgId, recordedAt: d.recordedAt, changes: mine });
  }
  return flights.get(flid) ?? null;
}
