/**
 * Semantic changes: what an `Applied` decision says happened to the flights (docs/contract/design.md §4).
 * A discriminated union on `type`; `evolve` is the single definition of what each one does.
 *
 * Changes are stored as JSON (decision_event.payload) and folded again on rebuild, so they carry
 * plain data only and never depend on key order.
 */
import type {
  Allocation, BridgeOp, ChockEvent, Delay, FlightFields, FlightLists, GroundService, Instant, ListName, PushbackEvent,
  RoutePoint, TowEvent, VipGuest,
} from './flight.ts';
import type { SchdStyp } from './catalogue.ts';
import { isReferenceChange, type ReferenceChange } from './reference/changes.ts';

export interface FlightCreated {
  type: 'FlightCreated';
  flid: string;
  operationDay: string;
  fields: FlightFields;
  lists: FlightLists;
}

/** Only the fields that change; `null` = cleared. */
export interface FlightUpdated {
  type: 'FlightUpdated';
  flid: string;
  fields: Partial<FlightFields>;
}

export interface StandsReplaced { type: 'StandsReplaced'; flid: string; items: Allocation[] }
export interface GatesReplaced { type: 'GatesReplaced'; flid: string; items: Allocation[] }
export interface CountersReplaced { type: 'CountersReplaced'; flid: string; items: Allocation[] }
export interface BeltsReplaced { type: 'BeltsReplaced'; flid: string; items: Allocation[] }
export interface ChutesReplaced { type: 'ChutesReplaced'; flid: string; items: Allocation[] }
export interface BridgesReplaced { type: 'BridgesReplaced'; flid: string; items: BridgeOp[] }
export interface ChocksReplaced { type: 'ChocksReplaced'; flid: string; items: ChockEvent[] }
export interface DelaysReplaced { type: 'DelaysReplaced'; flid: string; items: Delay[] }
export interface ServicesReplaced { type: 'ServicesReplaced'; flid: string; items: GroundService[] }
export interface RouteReplaced { type: 'RouteReplaced'; flid: string; items: RoutePoint[] }
export interface AdjacentStationsReplaced { type: 'AdjacentStationsReplaced'; flid: string; items: RoutePoint[] }
export interface VipGuestsReplaced { type: 'VipGuestsReplaced'; flid: string; items: VipGuest[] }
export interface PushbacksReplaced { type: 'PushbacksReplaced'; flid: string; items: PushbackEvent[] }
export interface TowsReplaced { type: 'TowsReplaced'; flid: string; items: TowEvent[] }

export type ListReplaced =
  | StandsReplaced | GatesReplaced | CountersReplaced | BeltsReplaced | ChutesReplaced | BridgesReplaced
  | ChocksReplaced | DelaysReplaced | ServicesReplaced | RouteReplaced | AdjacentStationsReplaced
  | VipGuestsReplaced | PushbacksReplaced | TowsReplaced;

/** fdel: FLOP/FDEL; plan-snapshot: missing from a DNLD/RESP; plan-delete: a record of a SCHD/DEL. */
export type DeleteReason = 'fdel' | 'plan-snapshot' | 'plan-delete';

export interface FlightDeleted { type: 'FlightDeleted'; flid: string; reason: DeleteReason }

/** A deleted flight brought back by a plan record (DNLD/RESP/ADFT). */
export interface FlightRestored { type: 'FlightRestored'; flid: string }

/** Summary of a plan snapshot (DNLD/RESP): one per message, even when nothing changed. */
export interface PlanSnapshotApplied {
  type: 'PlanSnapshotApplied';
  stype: Extract<SchdStyp, 'DNLD' | 'RESP'>;
  /** The message's own local date (of DTTM). */
  day: string;
  /**
   * The window the snapshot deleted in: for a RESP answering one of our plan requests, the requested
   * STDB–STDE (and `request` names its MGID); else [min SODT, max SODT] of the records, null when
   * the message has no records.
   */
  windowStart: Instant | null;
  windowEnd: Instant | null;
  /** The MGID of our plan request that this RESP answers (its RMID); absent otherwise. */
  request?: string;
  created: number;
  /** Existing flights that changed (including restored ones). */
  updated: number;
  deleted: number;
  /** Records for an operation day before `day`. */
  ignored: number;
}

/**
 * msgx asked the AODB for the plan of [windowStart, windowEnd] (an RQFD with MGID `mgid`, recorded
 * when the request is registered). No flight changes; the fold keeps it (planRequests.ts) so that
 * a RESP naming `mgid` in RMID deletes within the requested window (interface.md).
 */
export interface PlanRequested { type: 'PlanRequested'; mgid: string; windowStart: Instant; windowEnd: Instant }

/** History sweep: these flights leave the state (operator decision, not a message). */
export interface FlightsArchived { type: 'FlightsArchived'; flids: string[]; beforeDay: string }

export type FlightChange = FlightCreated | FlightUpdated | ListReplaced | FlightDeleted | FlightRestored;
/** Reference data and seasonal schedules: no flight (src/domain/reference/changes.ts). */
export type Change = FlightChange | PlanSnapshotApplied | PlanRequested | FlightsArchived | ReferenceChange;
export type ChangeType = Change['type'];

/** Which change replaces which list. */
export const LIST_CHANGE_TYPE = {
  stands: 'StandsReplaced',
  gates: 'GatesReplaced',
  counters: 'CountersReplaced',
  belts: 'BeltsReplaced',
  chutes: 'ChutesReplaced',
  bridges: 'BridgesReplaced',
  chocks: 'ChocksReplaced',
  delays: 'DelaysReplaced',
  services: 'ServicesReplaced',
  route: 'RouteReplaced',
  adjacent: 'AdjacentStationsReplaced',
  vipGuests: 'VipGuestsReplaced',
  pushbacks: 'PushbacksReplaced',
  tows: 'TowsReplaced',
} as const satisfies Record<ListName, ListReplaced['type']>;

const LIST_OF_CHANGE = Object.fromEntries(
  Object.entries(LIST_CHANGE_TYPE).map(([list, type]) => [type, list]),
) as Record<ListReplaced['type'], ListName>;

export function listReplaced<K extends ListName>(list: K, flid: string, items: FlightLists[K]): ListReplaced {
  // LIST_CHANGE_TYPE pairs each list with the change whose items have its element type.
  return { type: LIST_CHANGE_TYPE[list], flid, items } as ListReplaced;
}

/** The list a `…Replaced` change replaces. */
export function listOf(change: ListReplaced): ListName {
  return LIST_OF_CHANGE[change.type];
}

/** A `…Replaced` change: one list of a flight replaced. */
export function isListReplaced(change: Change): change is ListReplaced {
  return Object.hasOwn(LIST_OF_CHANGE, change.type);
}

export function isFlightChange(change: Change): change is FlightChange {
  return change.type !== 'PlanSnapshotApplied' && change.type !== 'PlanRequested' && change.type !== 'FlightsArchived' &&
    !isReferenceChange(change);
}
