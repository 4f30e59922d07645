/**
 * evolve: the single definition of what a change does to a flight. Pure; used by the pump's write
 * model, the flight projector and flight(asOf) alike (all through `applyDecision`).
 *
 * Rules: every flight change bumps stateVersion by 1; operationDay is set once, by FlightCreated,
 * and never changes. A change for a flight that is not in the state (which `decide` never emits)
 * leaves the state as it is, so folding is total.
 */
import { isFlightChange, listOf, type Change, type FlightChange } from './changes.ts';
import { emptyFields, pickFields } from './fields.ts';
import type { FlightState } from './flight.ts';
import { copyItems, copyLists } from './lists.ts';

function created(change: Extract<FlightChange, { type: 'FlightCreated' }>, before: FlightState | undefined): FlightState {
  return {
    ...emptyFields(),
    ...pickFields(change.fields),
    ...copyLists(change.lists),
    flid: change.flid,
    // Invariant 9: a flight keeps the operation day it was first created with.
    operationDay: before?.operationDay ?? change.operationDay,
    deleted: false,
    deletedReason: null,
    stateVersion: (before?.stateVersion ?? 0) + 1,
    lastPosition: before?.lastPosition ?? '0',
    lastMsgId: before?.lastMsgId ?? null,
    updatedAt: before?.updatedAt ?? null,
  };
}

function applyFlightChange(state: FlightState, change: FlightChange): FlightState {
  const next = { ...state, stateVersion: state.stateVersion + 1 };
  switch (change.type) {
    case 'FlightCreated':
      return created(change, state);
    case 'FlightUpdated':
      // Field keys only: a stray key in a stored change must not overwrite flid or operationDay.
      return { ...next, ...pickFields(change.fields) };
    case 'FlightDeleted':
      return { ...next, deleted: true, deletedReason: change.reason };
    case 'FlightRestored':
      return { ...next, deleted: false, deletedReason: null };
    case 'StandsReplaced':
    case 'GatesReplaced':
    case 'CountersReplaced':
    case 'BeltsReplaced':
    case 'ChutesReplaced':
    case 'BridgesReplaced':
    case 'ChocksReplaced':
    case 'DelaysReplaced':
    case 'ServicesReplaced':
    case 'RouteReplaced':
    case 'AdjacentStationsReplaced':
      return { ...next, [listOf(change)]: copyItems<object>(change.items) };
  }
}

/** The flight after `change`; undefined when there is (still / no longer) no such flight. */
export function evolve(state: FlightState | undefined, change: Change): FlightState | undefined {
  switch (change.type) {
    case 'PlanSnapshotApplied':
      return state;
    case 'FlightsArchived':
      return state !== undefined && change.flids.includes(state.flid) ? undefined : state;
    default:
      if (state === undefined) return change.type === 'FlightCreated' ? created(change, undefined) : undefined;
      return state.flid === change.flid ? applyFlightChange(state, change) : state;
  }
}

/** The envelope of one Applied decision, as recorded in the log. */
export interface AppliedEvent {
  position: string;
  msgId: string | null;
  recordedAt: string;
  changes: readonly Change[];
}

/**
 * Fold one decision's changes into `flights` (mutated: entries are replaced, never edited in
 * place, so earlier snapshots stay valid) and stamp lastPosition/lastMsgId/updatedAt on every
 * flight it touched. Returns the touched flids; a returned flid that is no longer in the map was
 * archived.
 */
export function applyDecision(flights: Map<string, FlightState>, event: AppliedEvent): Set<string> {
  const touched = new Set<string>();
  for (const change of event.changes) {
    if (change.type === 'FlightsArchived') {
      for (const flid of change.flids) {
        if (flights.delete(flid)) touched.add(flid);
      }
      continue;
    }
    if (!isFlightChange(change)) continue;
    const next = evolve(flights.get(change.flid), change);
    if (next === undefined) continue;
    flights.set(change.flid, next);
    touched.add(change.flid);
  }
  for (const flid of touched) {
    const state = flights.get(flid);
    if (state === undefined) continue;
    flights.set(flid, { ...state, lastPosition: event.position, lastMsgId: event.msgId, updatedAt: event.recordedAt });
  }
  return touched;
}
