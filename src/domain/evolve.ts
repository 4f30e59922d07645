/**
 * evolve: the single definition of what a change does to a flight. Pure; used by the pump's write
 * model, the flight projector and flight(asOf) alike (all through `applyDecision`).
 *
 * Rules: every flight change bumps stateVersion by 1; operationDay is set once, by FlightCreated,
 * and never changes. A change for a flight that is not in the state (which `decide` never emits)
 * leaves the state as it is, so folding is total.
 */
import { isFlightChange, listOf, type Change, type FlightChange } from './changes.ts';
import { FIELD_NAMES, fieldsOf } from './fields.ts';
import type { FieldName, FlightState } from './flight.ts';
import { copyItems, copyLists } from './lists.ts';

// States are built from one literal (fieldsOf) plus named stores, or cloned with one leading
// spread and then written by key: a second spread into a literal is ~100× slower in V8 (see
// fields.ts) and a plan snapshot creates thousands of states. A new state shares the unchanged
// lists with the one before it (they are never edited in place).

function created(change: Extract<FlightChange, { type: 'FlightCreated' }>, before: FlightState | undefined): FlightState {
  const lists = copyLists(change.lists);
  // Field keys only (fieldsOf): a stray key in a stored change must not overwrite flid or operationDay.
  const state = fieldsOf(change.fields) as FlightState;
  state.stands = lists.stands;
  state.gates = lists.gates;
  state.counters = lists.counters;
  state.belts = lists.belts;
  state.chutes = lists.chutes;
  state.bridges = lists.bridges;
  state.chocks = lists.chocks;
  state.delays = lists.delays;
  state.services = lists.services;
  state.route = lists.route;
  state.adjacent = lists.adjacent;
  state.flid = change.flid;
  // Invariant 9: a flight keeps the operation day it was first created with.
  state.operationDay = before?.operationDay ?? change.operationDay;
  state.deleted = false;
  state.deletedReason = null;
  state.stateVersion = (before?.stateVersion ?? 0) + 1;
  state.lastPosition = before?.lastPosition ?? '0';
  state.lastMsgId = before?.lastMsgId ?? null;
  state.updatedAt = before?.updatedAt ?? null;
  return state;
}

function applyFlightChange(state: FlightState, change: FlightChange): FlightState {
  if (change.type === 'FlightCreated') return created(change, state);
  const next = { ...state, stateVersion: state.stateVersion + 1 };
  switch (change.type) {
    case 'FlightUpdated': {
      // Field keys only: a stray key in a stored change must not overwrite flid or operationDay.
      const fields = next as Record<FieldName, unknown>;
      for (const name of FIELD_NAMES) {
        const value = change.fields[name];
        if (value !== undefined) fields[name] = value;
      }
      return next;
    }
    case 'FlightDeleted':
      next.deleted = true;
      next.deletedReason = change.reason;
      return next;
    case 'FlightRestored':
      next.deleted = false;
      next.deletedReason = null;
      return next;
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
      (next as Record<string, unknown>)[listOf(change)] = copyItems<object>(change.items);
      return next;
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
