/**
 * FLOP/FDEL (also TYPE=FDEL): soft-delete the flight. Deleting a flight that is already deleted
 * changes nothing.
 */
import type { FlightChange } from '../changes.ts';
import type { FlightState } from '../flight.ts';

export const FDEL_VERSION = 1;

export function decideFdel(state: FlightState): FlightChange[] {
  return state.deleted ? [] : [{ type: 'FlightDeleted', flid: state.flid, reason: 'fdel' }];
}
