/**
 * FlightState → the GraphQL `Flight` shape (graphql.md names). Pure; the read API, flight(asOf)
 * and the corpus tests share it. Instants stay UTC ISO strings unless `tz` is given, in which case
 * they are rendered in that zone with its offset (e.g. `2025-03-14T09:30:00+08:00`).
 */
import type {
  Allocation, BridgeOp, ChockEvent, Delay, FlightFields, FlightLists, FlightState, GroundService, Instant, ListName,
  PushbackEvent, RoutePoint, TowEvent, VipGuest,
} from './flight.ts';
import { formatOutward } from './time.ts';

export type DirectionName = 'ARRIVAL' | 'DEPARTURE';

export interface RoutePointView extends RoutePoint { kind: 'ERUT' | 'ROUT' }

/** Fields regrouped into objects of the view (interface.md, graphql.md Additions). */
type GroupedFields =
  | 'direction' | 'linkAirline' | 'linkFlightNo' | 'linkFlid' | 'agentPassenger' | 'agentField' | 'agentMaintenance'
  | 'eobt' | 'tobt' | 'cobt' | 'ctot' | 'iest' | 'appt' | 'egsr' | 'egst'
  | 'prevEstimatedDeparture' | 'nextEstimatedArrival' | 'nextActualArrival'
  | 'abnormalReason' | 'abnormalRemark' | 'vipPassengers' | 'vipReserved' | 'portTime' | 'portCode';

/** Fields shown as they are (instants possibly rendered in a zone); the others are regrouped. */
type PlainFields = Omit<FlightFields, GroupedFields>;

/** `Flight.milestones`: the whole timeline of a flight in one object (always present). */
export interface MilestonesView {
  estimatedOffBlock: Instant | null;
  targetOffBlock: Instant | null;
  calculatedOffBlock: Instant | null;
  calculatedTakeOff: Instant | null;
  inboundEstimate: Instant | null;
  approach: Instant | null;
  startUpRequest: Instant | null;
  startUp: Instant | null;
  prevEstimatedDeparture: Instant | null;
  /** Repeats `Flight.prevActualDeparture` (PADT). */
  prevActualDeparture: Instant | null;
  nextEstimatedArrival: Instant | null;
  nextActualArrival: Instant | null;
}

export interface FlightView extends PlainFields {
  flid: string;
  operationDay: string;
  direction: DirectionName | null;
  linkedFlight: { airline: string | null; flightNo: string | null; flid: string | null } | null;
  cancelled: boolean;
  handlingAgents: { passenger: string | null; field: string | null; maintenance: string | null } | null;
  deleted: boolean;
  stateVersion: number;
  lastPosition: string;
  lastMsgId: string | null;
  updatedAt: Instant | null;
  stands: Allocation[];
  gates: Allocation[];
  checkInCounters: Allocation[];
  baggageBelts: Allocation[];
  chutes: Allocation[];
  bridges: BridgeOp[];
  chocks: ChockEvent[];
  delays: Delay[];
  services: GroundService[];
  routePoints: RoutePointView[];
  adjacentStations: RoutePointView[];
  milestones: MilestonesView;
  /** FLAB; null when cleared. */
  abnormal: { reason: string | null; remark: string | null } | null;
  /** VIPP/VIPR; null when both cleared. */
  vip: { passengers: number | null; reserved: number | null } | null;
  vipGuests: VipGuest[];
  /** PORT; null when cleared. */
  port: { time: Instant | null; code: string | null } | null;
  pushbacks: PushbackEvent[];
  tows: TowEvent[];
}

export interface FlightViewOptions {
  /** Render instants in this IANA zone (with offset) instead of UTC. */
  tz?: string;
}

const allNull = (...values: unknown[]): boolean => values.every((v) => v === null);

export type Render = (v: Instant | null) => Instant | null;
/** Instants as they are (UTC), or as every outward time shows them in `tz` (time.ts formatOutward). */
export const renderer = (tz: string | undefined): Render => {
  if (tz === undefined) return (v) => v;
  return (v) => (v === null ? v : formatOutward(v, tz));
};

const alloc = (t: Render) => (a: Allocation): Allocation => ({
  ...a,
  scheduledStart: t(a.scheduledStart), scheduledEnd: t(a.scheduledEnd),
  actualStart: t(a.actualStart), actualEnd: t(a.actualEnd),
});
const routeTimes = (t: Render) => (p: RoutePoint): RoutePoint => ({
  ...p, scheduledArrival: t(p.scheduledArrival), scheduledDeparture: t(p.scheduledDeparture),
});

/**
 * Each FlightState list item with its instants rendered, same shape: what a flight view shows of
 * it, and what a change's items look like outward (changeView.ts).
 */
export const ITEM_TIMES = {
  stands: alloc,
  gates: alloc,
  counters: alloc,
  belts: alloc,
  chutes: alloc,
  bridges: (t: Render) => (b: BridgeOp): BridgeOp => ({ ...b, time: t(b.time) }),
  chocks: (t: Render) => (c: ChockEvent): ChockEvent => ({ ...c, time: t(c.time) }),
  delays: (t: Render) => (d: Delay): Delay => ({ ...d, start: t(d.start) }),
  services: (t: Render) => (v: GroundService): GroundService => ({ ...v, start: t(v.start), end: t(v.end) }),
  route: routeTimes,
  adjacent: routeTimes,
  vipGuests: () => (v: VipGuest): VipGuest => ({ ...v }),
  pushbacks: (t: Render) => (p: PushbackEvent): PushbackEvent => ({ ...p, time: t(p.time) }),
  tows: (t: Render) => (w: TowEvent): TowEvent => ({ ...w, time: t(w.time) }),
} as const satisfies { [L in ListName]: (t: Render) => (x: FlightLists[L][number]) => FlightLists[L][number] };

const point = (t: Render, kind: 'ERUT' | 'ROUT') => (p: RoutePoint): RoutePointView => ({ ...routeTimes(t)(p), kind });

/** Each FlightState list → its `Flight` field name and how one item is shown. */
const LIST_VIEWS = {
  stands: { field: 'stands', item: ITEM_TIMES.stands },
  gates: { field: 'gates', item: ITEM_TIMES.gates },
  counters: { field: 'checkInCounters', item: ITEM_TIMES.counters },
  belts: { field: 'baggageBelts', item: ITEM_TIMES.belts },
  chutes: { field: 'chutes', item: ITEM_TIMES.chutes },
  bridges: { field: 'bridges', item: ITEM_TIMES.bridges },
  chocks: { field: 'chocks', item: ITEM_TIMES.chocks },
  delays: { field: 'delays', item: ITEM_TIMES.delays },
  services: { field: 'services', item: ITEM_TIMES.services },
  route: { field: 'routePoints', item: (t: Render) => point(t, 'ERUT') },
  adjacent: { field: 'adjacentStations', item: (t: Render) => point(t, 'ROUT') },
  vipGuests: { field: 'vipGuests', item: ITEM_TIMES.vipGuests },
  pushbacks: { field: 'pushbacks', item: ITEM_TIMES.pushbacks },
  tows: { field: 'tows', item: ITEM_TIMES.tows },
} as const satisfies { [L in ListName]: { field: keyof FlightView; item: (t: Render) => (x: FlightLists[L][number]) => unknown } };

/** The `Flight` field that shows FlightState list `L`. */
export type ListField<L extends ListName> = (typeof LIST_VIEWS)[L]['field'];

/** The `Flight` field name of a FlightState list (e.g. counters → checkInCounters). */
export const listField = <L extends ListName>(list: L): ListField<L> => LIST_VIEWS[list].field;

function listView<L extends ListName>(list: L, items: FlightLists[L], t: Render): FlightView[ListField<L>] {
  const item = LIST_VIEWS[list].item(t) as (x: FlightLists[L][number]) => unknown;
  return (items as FlightLists[L][number][]).map(item) as FlightView[ListField<L>];
}

/** One list of a flight as `toFlightView` shows it, without building the rest of the view. */
export function toListView<L extends ListName>(list: L, items: FlightLists[L], opts: FlightViewOptions = {}): FlightView[ListField<L>] {
  return listView(list, items, renderer(opts.tz));
}

export function toFlightView(s: FlightState, opts: FlightViewOptions = {}): FlightView {
  const t = renderer(opts.tz);
  return viewOf(s, t, (list, items) => listView(list, items, t));
}

/** How a view shows each FlightState list (the field `listField(list)`). */
export type ListsView = <L extends ListName>(list: L, items: FlightLists[L]) => FlightView[ListField<L>];

/**
 * The view of `s` with instants rendered by `t` and lists by `lists`: toFlightView's shape, for a
 * caller that shows the lists its own way (the read model's document, readModel/flightDoc.ts).
 */
export function viewOf(s: FlightState, t: Render, lists: ListsView): FlightView {
  return {
    flid: s.flid,
    ffid: s.ffid,
    operationDay: s.operationDay,
    airline: s.airline,
    flightNo: s.flightNo,
    direction: s.direction === 'A' ? 'ARRIVAL' : s.direction === 'D' ? 'DEPARTURE' : null,
    scheduledTime: t(s.scheduledTime),
    estimatedTime: t(s.estimatedTime),
    actualTime: t(s.actualTime),
    prevActualDeparture: t(s.prevActualDeparture),
    serviceType: s.serviceType,
    flightNature: s.flightNature,
    aircraftType: s.aircraftType,
    registration: s.registration,
    terminal: s.terminal,
    currentStand: s.currentStand,
    linkedFlight: allNull(s.linkAirline, s.linkFlightNo, s.linkFlid)
      ? null
      : { airline: s.linkAirline, flightNo: s.linkFlightNo, flid: s.linkFlid },
    masterFlid: s.masterFlid,
    masterAirline: s.masterAirline,
    masterFlightNo: s.masterFlightNo,
    boardingOpen: t(s.boardingOpen),
    lastCall: t(s.lastCall),
    boardingClosed: t(s.boardingClosed),
    cancelTime: t(s.cancelTime),
    cancelled: s.cancelTime !== null,
    status: s.status,
    publicStatus: s.publicStatus,
    publicRemark: s.publicRemark,
    diversionAirport: s.diversionAirport,
    diversionDirection: s.diversionDirection,
    returnType: s.returnType,
    handlingAgents: allNull(s.agentPassenger, s.agentField, s.agentMaintenance)
      ? null
      : { passenger: s.agentPassenger, field: s.agentField, maintenance: s.agentMaintenance },
    deleted: s.deleted,
    stateVersion: s.stateVersion,
    lastPosition: s.lastPosition,
    lastMsgId: s.lastMsgId,
    updatedAt: t(s.updatedAt),
    stands: lists('stands', s.stands),
    gates: lists('gates', s.gates),
    checkInCounters: lists('counters', s.counters),
    baggageBelts: lists('belts', s.belts),
    chutes: lists('chutes', s.chutes),
    bridges: lists('bridges', s.bridges),
    chocks: lists('chocks', s.chocks),
    delays: lists('delays', s.delays),
    services: lists('services', s.services),
    routePoints: lists('route', s.route),
    adjacentStations: lists('adjacent', s.adjacent),
    milestones: {
      estimatedOffBlock: t(s.eobt),
      targetOffBlock: t(s.tobt),
      calculatedOffBlock: t(s.cobt),
      calculatedTakeOff: t(s.ctot),
      inboundEstimate: t(s.iest),
      approach: t(s.appt),
      startUpRequest: t(s.egsr),
      startUp: t(s.egst),
      prevEstimatedDeparture: t(s.prevEstimatedDeparture),
      prevActualDeparture: t(s.prevActualDeparture),
      nextEstimatedArrival: t(s.nextEstimatedArrival),
      nextActualArrival: t(s.nextActualArrival),
    },
    abnormal: allNull(s.abnormalReason, s.abnormalRemark) ? null : { reason: s.abnormalReason, remark: s.abnormalRemark },
    maxPassengers: s.maxPassengers,
    remark: s.remark,
    runway: s.runway,
    vip: allNull(s.vipPassengers, s.vipReserved) ? null : { passengers: s.vipPassengers, reserved: s.vipReserved },
    vipGuests: lists('vipGuests', s.vipGuests),
    port: allNull(s.portTime, s.portCode) ? null : { time: t(s.portTime), code: s.portCode },
    pushbacks: lists('pushbacks', s.pushbacks),
    tows: lists('tows', s.tows),
  };
}
