/** Build a flight state map by folding messages (decode → decide → applyDecision), for handler tests. */
import type { Change } from '../../../src/domain/changes.ts';
import { decide, type Decision } from '../../../src/domain/decide.ts';
import { applyDecision } from '../../../src/domain/evolve.ts';
import type { FlightState } from '../../../src/domain/flight.ts';
import { decodeOk } from './decodeOk.ts';

/** Decide `xml` against `flights` and apply it (mutating `flights`); returns the decision. */
export function step(flights: Map<string, FlightState>, xml: string, position = flights.size + 1): Decision {
  const message = decodeOk(xml);
  const decision = decide(flights, message);
  applyDecision(flights, { position: String(position), msgId: String(position), recordedAt: message.meta.sentAt, changes: decision.changes });
  return decision;
}

export function fold(xmls: string[]): Map<string, FlightState> {
  const flights = new Map<string, FlightState>();
  xmls.forEach((xml, i) => step(flights, xml, i + 1));
  return flights;
}

/** Changes without the summary, for asserting flight changes only. */
export const flightChanges = (changes: Change[]): Change[] =>
  changes.filter((c) => c.type !== 'PlanSnapshotApplied');
