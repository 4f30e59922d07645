/**
 * The flight's scalar fields: their names and the all-null starting point of a new flight.
 */
import type { FieldName, FlightFields } from './flight.ts';

/**
 * All fields, from a patch: absent (undefined) keys are null; keys that are not fields are left
 * out. One literal on purpose: in V8, `{ ...a, ...b }` with a second spread (or spread plus
 * computed keys) of this many keys took ~100 µs per object against ~1 µs for a literal, and this
 * runs per flight of a plan snapshot.
 */
export function fieldsOf(p: Partial<FlightFields>): FlightFields {
  return {
    ffid: p.ffid ?? null,
    airline: p.airline ?? null,
    flightNo: p.flightNo ?? null,
    direction: p.direction ?? null,
    scheduledTime: p.scheduledTime ?? null,
    estimatedTime: p.estimatedTime ?? null,
    actualTime: p.actualTime ?? null,
    prevActualDeparture: p.prevActualDeparture ?? null,
    serviceType: p.serviceType ?? null,
    flightNature: p.flightNature ?? null,
    aircraftType: p.aircraftType ?? null,
    registration: p.registration ?? null,
    terminal: p.terminal ?? null,
    currentStand: p.currentStand ?? null,
    linkAirline: p.linkAirline ?? null,
    linkFlightNo: p.linkFlightNo ?? null,
    linkFlid: p.linkFlid ?? null,
    masterAirline: p.masterAirline ?? null,
    masterFlightNo: p.masterFlightNo ?? null,
    masterFlid: p.masterFlid ?? null,
    boardingOpen: p.boardingOpen ?? null,
    lastCall: p.lastCall ?? null,
    boardingClosed: p.boardingClosed ?? null,
    cancelTime: p.cancelTime ?? null,
    status: p.status ?? null,
    publicStatus: p.publicStatus ?? null,
    publicRemark: p.publicRemark ?? null,
    diversionAirport: p.diversionAirport ?? null,
    diversionDirection: p.diversionDirection ?? null,
    returnType: p.returnType ?? null,
    agentPassenger: p.agentPassenger ?? null,
    agentField: p.agentField ?? null,
    agentMaintenance: p.agentMaintenance ?? null,
    eobt: p.eobt ?? null,
    tobt: p.tobt ?? null,
    cobt: p.cobt ?? null,
    ctot: p.ctot ?? null,
    iest: p.iest ?? null,
    appt: p.appt ?? null,
    egsr: p.egsr ?? null,
    egst: p.egst ?? null,
    prevEstimatedDeparture: p.prevEstimatedDeparture ?? null,
    nextEstimatedArrival: p.nextEstimatedArrival ?? null,
    nextActualArrival: p.nextActualArrival ?? null,
    abnormalReason: p.abnormalReason ?? null,
    abnormalRemark: p.abnormalRemark ?? null,
    maxPassengers: p.maxPassengers ?? null,
    remark: p.remark ?? null,
    runway: p.runway ?? null,
    vipPassengers: p.vipPassengers ?? null,
    vipReserved: p.vipReserved ?? null,
    portTime: p.portTime ?? null,
    portCode: p.portCode ?? null,
  };
}

export function emptyFields(): FlightFields {
  return fieldsOf({});
}

export const FIELD_NAMES = Object.keys(emptyFields()) as readonly FieldName[];
