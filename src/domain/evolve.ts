/**
 * evolve: the single definition of what a change does to a flight. Pure; used by the pump's write
 * model, the flight projector and flight(asOf) alike (all through `applyDecision`).
 *
 * Rules: every flight change bumps stateVersion by 1 (applyDecision then counts a whole decision as
 * one version, whatever its number of changes); operationDay is set once, by FlightCreated,
 * and never changes. A change for a flight that is not in the state (which `decide` never emits)
 * leaves the state as it is, so folding is total.
 */
import { isFlightChange, listOf, type Change, type FlightChange } from './changes.ts';
import { FIELD_NAMES, fieldsOf } from './fields.ts';
import type { FieldName, FlightState } from './flight.ts';
import { copyItems, copyLists, LIST_NAMES } from './lists.ts';
import { runSteps, stepCounter, type Steps } from './steps.ts';

const IS_FIELD: ReadonlySet<string> = new Set(FIELD_NAMES);

// A new state is one object literal with every key (built key by key or by spreading a second
// object into a literal, V8 reallocates and re-shapes it many times: ~100× slower, and a plan
// snapshot creates thousands); a changed state is one leading spread, then written by key. A new
// state shares the unchanged lists with the one before it (they are never edited in place).

function created(change: Extract<FlightChange, { type: 'FlightCreated' }>, before: FlightState | undefined): FlightState {
  // Field keys only (fieldsOf): a stray key in a stored change must not overwrite flid or operationDay.
  const f = fieldsOf(change.fields);
  const l = copyLists(change.lists);
  return {
    ffid: f.ffid, airline: f.airline, flightNo: f.flightNo, direction: f.direction, scheduledTime: f.scheduledTime,
    estimatedTime: f.estimatedTime, actualTime: f.actualTime, prevActualDeparture: f.prevActualDeparture,
    serviceType: f.serviceType, flightNature: f.flightNature, aircraftType: f.aircraftType, registration: f.registration,
    terminal: f.terminal, currentStand: f.currentStand, linkAirline: f.linkAirline, linkFlightNo: f.linkFlightNo,
    linkFlid: f.linkFlid, masterAirline: f.masterAirline, masterFlightNo: f.masterFlightNo, masterFlid: f.masterFlid,
    boardingOpen: f.boardingOpen, lastCall: f.lastCall, boardingClosed: f.boardingClosed, cancelTime: f.cancelTime,
    status: f.status, publicStatus: f.publicStatus, publicRemark: f.publicRemark, diversionAirport: f.diversionAirport,
    diversionDirection: f.diversionDirection, returnType: f.returnType, agentPassenger: f.agentPassenger,
    agentField: f.agentField, agentMaintenance: f.agentMaintenance,
    eobt: f.eobt, tobt: f.tobt, cobt: f.cobt, ctot: f.ctot, iest: f.iest, appt: f.appt, egsr: f.egsr, egst: f.egst,
    prevEstimatedDeparture: f.prevEstimatedDeparture, nextEstimatedArrival: f.nextEstimatedArrival,
    nextActualArrival: f.nextActualArrival, abnormalReason: f.abnormalReason, abnormalRemark: f.abnormalRemark,
    maxPassengers: f.maxPassengers, remark: f.remark, runway: f.runway, vipPassengers: f.vipPassengers,
    vipReserved: f.vipReserved, portTime: f.portTime, portCode: f.portCode,
    stands: l.stands, gates: l.gates, counters: l.counters, belts: l.belts, chutes: l.chutes, bridges: l.bridges,
    chocks: l.chocks, delays: l.delays, services: l.services, route: l.route, adjacent: l.adjacent,
    vipGuests: l.vipGuests, pushbacks: l.pushbacks, tows: l.tows,
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

/** `inPlace`: change `state` itself (a state an owned fold made, see FoldOwnership) instead of a copy. */
function applyFlightChange(state: FlightState, change: FlightChange, inPlace: boolean): FlightState {
  if (change.type === 'FlightCreated') return created(change, state);
  const next = inPlace ? state : { ...state };
  next.stateVersion = state.stateVersion + 1;
  switch (change.type) {
    case 'FlightUpdated': {
      // Field keys only: a stray key in a stored change must not overwrite flid or operationDay.
      // The change's own keys (a few), not every field name looked up in it.
      const fields = next as Record<FieldName, unknown>;
      const set = change.fields as Record<string, unknown>;
      for (const name in set) {
        const value = set[name];
        if (value !== undefined && IS_FIELD.has(name)) fields[name as FieldName] = value;
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
    case 'VipGuestsReplaced':
    case 'PushbacksReplaced':
    case 'TowsReplaced':
      (next as unknown as Record<string, unknown>)[listOf(change)] = copyItems<object>(change.items);
      return next;
  }
}

/** The flight after `change`; undefined when there is (still / no longer) no such flight. */
export function evolve(state: FlightState | undefined, change: Change): FlightState | undefined {
  return evolveFlight(state, change, false);
}

function evolveFlight(state: FlightState | undefined, change: Change, inPlace: boolean): FlightState | undefined {
  switch (change.type) {
    case 'PlanSnapshotApplied':
    case 'PlanRequested':
      return state;
    case 'FlightsArchived':
      return state !== undefined && change.flids.includes(state.flid) ? undefined : state;
    case 'ReferenceUpserted':
    case 'ReferenceDeleted':
    case 'ReferenceSnapshotApplied':
    case 'SeasonalScheduleReplaced':
      // Reference data and seasonal schedules: no flight (src/domain/reference/state.ts).
      return state;
    default:
      if (state === undefined) return change.type === 'FlightCreated' ? created(change, undefined) : undefined;
      return state.flid === change.flid ? applyFlightChange(state, change, inPlace) : state;
  }
}

/** The envelope of one Applied decision, as recorded in the log. */
export interface AppliedEvent {
  position: string;
  msgId: string | null;
  recordedAt: string;
  changes: readonly Change[];
}

/** Adds to `keys` the field and list keys a change sets (what `sources` records for it). */
function addKeysSet(change: FlightChange, keys: string[]): void {
  switch (change.type) {
    case 'FlightCreated': {
      const fields = change.fields as Partial<Record<FieldName, unknown>>;
      for (const name of FIELD_NAMES) if ((fields[name] ?? null) !== null) keys.push(name);
      const lists = change.lists as unknown as Partial<Record<string, readonly unknown[]>>;
      for (const list in lists) if ((lists[list]?.length ?? 0) > 0) keys.push(list);
      return;
    }
    case 'FlightUpdated':
      for (const k in change.fields) if (IS_FIELD.has(k)) keys.push(k);
      return;
    case 'FlightDeleted':
    case 'FlightRestored':
      return;
    default:
      keys.push(listOf(change));
  }
}

/**
 * The states (and `sources` records) an owned fold made and nobody else holds (docs/projections.md
 * "Rebuild", the owned fold): `applyDecision` with an ownership changes these in place instead of
 * copying them, and marks as owned every state and record it makes. A fold may own what it hands to
 * nobody before its next decision — a rebuild's replay, whose flights are only written out, not
 * read by anyone else meanwhile. A state it did not make (a snapshot's, a journaled map's before
 * `begin`) is copied at its first change, as without an ownership, and owned from then on. `release`
 * gives everything up: from then on the fold copies again (before a journal must keep old states).
 */
export class FoldOwnership {
  private owned = new WeakSet<object>();

  owns(x: object): boolean {
    return this.owned.has(x);
  }

  adopt(x: object): void {
    this.owned.add(x);
  }

  release(): void {
    this.owned = new WeakSet();
  }
}

/**
 * Fold one decision's changes into `flights` (mutated: entries are replaced, never edited in
 * place, so earlier snapshots stay valid — only states made by this call are written to) and stamp
 * lastPosition/lastMsgId/updatedAt on every flight it touched. Returns the touched flids; a returned flid that is no longer in the map was
 * archived.
 *
 * `stateVersion` goes up by exactly one per decision that changes a flight (one write = one
 * version, interface.md), however many changes of the decision touch it. A decision caused by a
 * message also records, in `sources`, that message as the setter of each field and list it set
 * (what the stale rule of a replayed message compares against, see stale.ts).
 *
 * With `own` (FoldOwnership) the states and records it owns are edited in place instead; the
 * resulting states are equal to those of the fold without it.
 */
export function applyDecision(flights: Map<string, FlightState>, event: AppliedEvent, own?: FoldOwnership): Set<string> {
  return runSteps(applyDecisionSteps(flights, event, own));
}

/**
 * `applyDecision` in steps (src/domain/steps.ts): the pump folds a plan's 70,000 changes into its
 * overlay a slice at a time. Nothing else may read `flights` before the steps are done.
 */
export function* applyDecisionSteps(flights: Map<string, FlightState>, event: AppliedEvent, own?: FoldOwnership): Steps<Set<string>> {
  const step = stepCounter();
  const touched = new Set<string>();
  const changed = new Map<string, Changed>();
  for (const change of event.changes) {
    if (step()) yield;
    if (change.type === 'FlightsArchived') {
      for (const flid of change.flids) {
        if (flights.delete(flid)) touched.add(flid);
      }
      continue;
    }
    if (!isFlightChange(change)) continue;
    const before = flights.get(change.flid);
    let seen = changed.get(change.flid);
    const version = before?.stateVersion ?? 0; // read before an in-place change bumps it
    const next = evolveFlight(before, change, before !== undefined && (seen?.state === before || (own?.owns(before) ?? false)));
    if (next === undefined) continue;
    if (seen === undefined) changed.set(change.flid, (seen = { version, keys: null, state: next }));
    else seen.state = next;
    if (event.msgId !== null) addKeysSet(change, (seen.keys ??= []));
    if (next !== before) {
      own?.adopt(next);
      flights.set(change.flid, next);
    }
    touched.add(change.flid);
  }
  for (const flid of touched) {
    if (step()) yield;
    const state = flights.get(flid);
    if (state === undefined) continue;
    const seen = changed.get(flid);
    const stateVersion = (seen?.version ?? state.stateVersion - 1) + 1;
    const keys = seen?.keys;
    const sources = keys === undefined || keys === null || keys.length === 0 ? state.sources : withSources(state.sources, keys, event.msgId!, own);
    if (seen?.state === state) {
      state.lastPosition = event.position;
      state.lastMsgId = event.msgId;
      state.updatedAt = event.recordedAt;
      state.stateVersion = stateVersion;
      if (sources !== undefined) state.sources = sources;
    } else {
      const next: FlightState = { ...state, lastPosition: event.position, lastMsgId: event.msgId, updatedAt: event.recordedAt, stateVersion };
      if (sources !== undefined) next.sources = sources;
      own?.adopt(next);
      flights.set(flid, next);
    }
  }
  return touched;
}

/** What one decision did to one flight so far (applyDecisionSteps). */
interface Changed {
  /** The flight's stateVersion before the decision. */
  readonly version: number;
  /** The field and list keys the decision set (for `sources`); null: none yet, or a decision without a message. */
  keys: string[] | null;
  /** The state the decision made, or (owned) changed in place: no one else holds it, so it is changed and stamped in place. */
  state: FlightState;
}

type SourcesRecord = Record<string, string | undefined>;

/**
 * A sources record with every key it can hold — the field names, then the list names — unset
 * (undefined: JSON, and so field_sources, leaves them out; stale.ts reads undefined as "no setter").
 * One literal of one shape: copying it is V8's fast clone of that shape and setting a key never
 * reshapes it. A record built key by key (as this was, `{ ...before }` then `out[k] = msgId`) turns
 * into a dictionary past a dozen keys, and every copy of a dictionary is slow. `sourcesTemplate.unit`
 * checks that these are exactly FIELD_NAMES and LIST_NAMES.
 */
export function emptySources(): SourcesRecord {
  return {
    ffid: undefined, airline: undefined, flightNo: undefined, direction: undefined, scheduledTime: undefined,
    estimatedTime: undefined, actualTime: undefined, prevActualDeparture: undefined, serviceType: undefined,
    flightNature: undefined, aircraftType: undefined, registration: undefined, terminal: undefined, currentStand: undefined,
    linkAirline: undefined, linkFlightNo: undefined, linkFlid: undefined, masterAirline: undefined, masterFlightNo: undefined,
    masterFlid: undefined, boardingOpen: undefined, lastCall: undefined, boardingClosed: undefined, cancelTime: undefined,
    status: undefined, publicStatus: undefined, publicRemark: undefined, diversionAirport: undefined,
    diversionDirection: undefined, returnType: undefined, agentPassenger: undefined, agentField: undefined,
    agentMaintenance: undefined, eobt: undefined, tobt: undefined, cobt: undefined, ctot: undefined, iest: undefined,
    appt: undefined, egsr: undefined, egst: undefined, prevEstimatedDeparture: undefined, nextEstimatedArrival: undefined,
    nextActualArrival: undefined, abnormalReason: undefined, abnormalRemark: undefined, maxPassengers: undefined,
    remark: undefined, runway: undefined, vipPassengers: undefined, vipReserved: undefined, portTime: undefined,
    portCode: undefined,
    stands: undefined, gates: undefined, counters: undefined, belts: undefined, chutes: undefined, bridges: undefined,
    chocks: undefined, delays: undefined, services: undefined, route: undefined, adjacent: undefined,
    vipGuests: undefined, pushbacks: undefined, tows: undefined,
  };
}

const LAST_SOURCE_KEY = LIST_NAMES[LIST_NAMES.length - 1]!;

/**
 * `before` with `keys` set to `msgId`, as a new record (`before` may be shared by earlier states),
 * or `before` itself, changed, when `own` owns it.
 */
function withSources(
  before: Readonly<Record<string, string | undefined>> | undefined,
  keys: readonly string[],
  msgId: string,
  own: FoldOwnership | undefined,
): Record<string, string> {
  let out: SourcesRecord;
  if (before !== undefined && own?.owns(before)) {
    out = before as SourcesRecord; // made by this fold (of the full shape) and held by one state only
  } else if (before !== undefined && Object.hasOwn(before, FIELD_NAMES[0]!) && Object.hasOwn(before, LAST_SOURCE_KEY)) {
    out = { ...before }; // already of the full shape (made here): the fast clone
  } else {
    // None yet, or one with only the keys set (read back from field_sources): widen it once.
    out = emptySources();
    if (before !== undefined) for (const k in before) out[k] = before[k];
  }
  for (const k of keys) out[k] = msgId;
  own?.adopt(out);
  return out as Record<string, string>;
}
