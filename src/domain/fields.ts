/**
 * The flight's scalar fields: their names and the all-null starting point of a new flight.
 */
import type { FieldName, FlightFields } from './flight.ts';

export function emptyFields(): FlightFields {
  return {
    ffid: null, airline: null, flightNo: null, direction: null, scheduledTime: null,
    estimatedTime: null, actualTime: null, prevActualDeparture: null, serviceType: null,
    flightNature: null, aircraftType: null, registration: null, terminal: null, currentStand: null,
    linkAirline: null, linkFlightNo: null, linkFlid: null, masterAirline: null, masterFlightNo: null,
    masterFlid: null, boardingOpen: null, lastCall: null, boardingClosed: null, cancelTime: null,
    status: null, publicStatus: null, publicRemark: null, diversionAirport: null,
    diversionDirection: null, returnType: null, agentPassenger: null, agentField: null, agentMaintenance: null,
  };
}

export const FIELD_NAMES = Object.keys(emptyFields()) as readonly FieldName[];

/** Only the flight-field keys of `patch` that carry a value (`null` included, `undefined` not). */
export function pickFields(patch: Partial<FlightFields>): Partial<FlightFields> {
  const out: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) {
    if (patch[name] !== undefined) out[name] = patch[name];
  }
  return out as Partial<FlightFields>;
}
