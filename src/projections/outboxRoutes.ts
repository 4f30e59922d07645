/**
 * Which decisions also go to the shared MySQL mailbox COUTMSGS. None by default: COUTMSGS carries
 * our plan requests (written by the delivery side), and notifications only where an operator
 * configures a route. A route is a pure function of one change (with the flight's state after the
 * decision, if it still exists) to the COUTMSGS text, or null for "not this one".
 */
import type { Change } from '../domain/changes.ts';
import type { FlightState } from '../domain/flight.ts';
import type { DecisionEvent } from '../log/readDecisions.ts';

export interface CoutmsgsRouteInput {
  readonly event: DecisionEvent;
  readonly change: Change;
  readonly flight: FlightState | undefined;
}

/** The msg_event payload of a COUTMSGS row: the CLOB text and, optionally, a ROUTINGID override. */
export interface CoutmsgsPayload {
  readonly clobMsg: string;
  readonly routingId?: string;
}

export type CoutmsgsRoute = (input: CoutmsgsRouteInput) => CoutmsgsPayload | null;

export const NO_COUTMSGS_ROUTES: readonly CoutmsgsRoute[] = Object.freeze([]);
