/**
 * FlightState → the GraphQL `Flight` shape (graphql.md names). Pure; the read API, flight(asOf)
 * and the corpus tests share it. Instants stay UTC ISO strings unless `tz` is given, in which case
 * they are rendered in that zone with its offset (e.g. `2025-03-14T09:30:00+08:00`).
 */
import type {
  Allocation, BridgeOp, ChockEvent, Delay, FlightFields, FlightState, GroundService, Instant, RoutePoint,
} from './flight.ts';
import { formatInZone } from './time.ts';

export type DirectionName = 'ARRIVAL' | 'DEPARTURE';

export interface RoutePointView extends RoutePoint { kind: 'ERUT' | 'ROUT' }

/** Fields shown as they are (instants possibly rendered in a zone); the others are regrouped. */
type PlainFields = Omit<FlightFields,
  'direction' | 'linkAirline' | 'linkFlightNo' | 'linkFlid' | 'agentPassenger' | 'agentField' | 'agentMaintenance'>;

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
}

export interface FlightViewOptions {
  /** Render instants in this IANA zone (with offset) instead of UTC. */
  tz?: string;
}

const allNull = (...values: unknown[]): boolean => values.every((v) => v === null);

export function toFlightView(s: FlightState, opts: FlightViewOptions = {}): FlightView {
  const { tz } = opts;
  const t = (v: Instant | null): Instant | null => (v === null || tz === undefined ? v : formatInZone(v, tz));
  const alloc = (a: Allocation): Allocation => ({
    ...a,
    scheduledStart: t(a.scheduledStart), scheduledEnd: t(a.scheduledEnd),
    actualStart: t(a.actualStart), actualEnd: t(a.actualEnd),
  });
  const point = (kind: 'ERUT' | 'ROUT') => (p: RoutePoint): RoutePointView => ({
    ...p, scheduledArrival: t(p.scheduledArrival), scheduledDeparture: t(p.scheduledDeparture), kind,
  });
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
    stands: s.stands.map(alloc),
    gates: s.gates.map(alloc),
    checkInCounters: s.counters.map(alloc),
    baggageBelts: s.belts.map(alloc),
    chutes: s.chutes.map(alloc),
    bridges: s.bridges.map((b) => ({ ...b, time: t(b.time) })),
    chocks: s.chocks.map((c) => ({ ...c, time: t(c.time) })),
    delays: s.delays.map((d) => ({ ...d, start: t(d.start) })),
    services: s.services.map((v) => ({ ...v, start: t(v.start), end: t(v.end) })),
    routePoints: s.route.map(point('ERUT')),
    adjacentStations: s.adjacent.map(point('ROUT')),
  };
}
