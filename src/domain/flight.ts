/**
 * The state of one flight, as folded from the decision log by `evolve`.
 *
 * This is the single shape shared by the pump's write model, the flight projector
 * (which maps it 1:1 onto `flight_schd` and the detail tables) and `flight(asOf)`.
 * Times are ISO-8601 instants in UTC (`2025-03-14T01:30:00.000Z`); `null` means
 * "not set" (an empty element in a message clears a field to null).
 * FLIDs are decimal strings (AODB keys are int64).
 */

export type Direction = 'A' | 'D';
export type Instant = string; // ISO-8601 UTC

/** Scalar fields a message can set or clear. Names map 1:1 to flight_schd columns (snake_case). */
export interface FlightFields {
  ffid: string | null;
  airline: string | null;
  flightNo: string | null;
  direction: Direction | null;
  scheduledTime: Instant | null;
  estimatedTime: Instant | null;
  actualTime: Instant | null;
  prevActualDeparture: Instant | null;
  serviceType: string | null;
  flightNature: string | null;
  aircraftType: string | null;
  registration: string | null;
  terminal: string | null;
  currentStand: string | null;
  linkAirline: string | null;
  linkFlightNo: string | null;
  linkFlid: string | null;
  masterAirline: string | null;
  masterFlightNo: string | null;
  masterFlid: string | null;
  boardingOpen: Instant | null;
  lastCall: Instant | null;
  boardingClosed: Instant | null;
  cancelTime: Instant | null;
  status: string | null;
  publicStatus: string | null;
  publicRemark: string | null;
  diversionAirport: string | null;
  diversionDirection: string | null;
  returnType: string | null;
  agentPassenger: string | null;
  agentField: string | null;
  agentMaintenance: string | null;
  // The whole interface (interface.md): A-CDM and other milestones, all as given by the AODB.
  eobt: Instant | null;                    // EOBT estimated off-block
  tobt: Instant | null;                    // TOBT target off-block
  cobt: Instant | null;                    // COBT calculated off-block
  ctot: Instant | null;                    // CTOT calculated take-off (slot)
  iest: Instant | null;                    // IEST inbound estimate
  appt: Instant | null;                    // APPT approach
  egsr: Instant | null;                    // EGSR engine start-up request
  egst: Instant | null;                    // EGST engine start-up
  prevEstimatedDeparture: Instant | null;  // PEDT
  nextEstimatedArrival: Instant | null;    // NEAT
  nextActualArrival: Instant | null;       // NAAT
  abnormalReason: string | null;           // FLAB@ARES
  abnormalRemark: string | null;           // FLAB text
  maxPassengers: number | null;            // MAXP
  remark: string | null;                   // REMC
  runway: string | null;                   // RUNW
  vipPassengers: number | null;            // VIPP
  vipReserved: number | null;              // VIPR
  portTime: Instant | null;                // PORT/POTM
  portCode: string | null;                 // PORT/POID
}

export type FieldName = keyof FlightFields;

/** PSDT, GTDT, CKDT, CLDT, CHDT all share one allocation shape (graphql ResourceAllocation). */
export interface Allocation {
  seq: number;
  code: string;
  class: string | null;
  kind: string | null;
  scheduledStart: Instant | null;
  scheduledEnd: Instant | null;
  actualStart: Instant | null;
  actualEnd: Instant | null;
}
export interface BridgeOp { seq: number; bridge: string; operation: string | null; time: Instant | null }
export interface ChockEvent { seq: number; stand: string | null; onOff: string | null; time: Instant | null }
export interface Delay { code: string; start: Instant | null; durationMinutes: number | null }
export interface GroundService {
  code: string;
  quantity: number | null;
  start: Instant | null;
  end: Instant | null;
  provider: string | null;
  abnormalReason: string | null;
  abnormalRemark: string | null;
}
export interface RoutePoint {
  seq: number;
  airport: string;
  scheduledArrival: Instant | null;
  scheduledDeparture: Instant | null;
}
/** VIPF: one VIP guest (seq = order in the message). */
export interface VipGuest { seq: number; code: string; escorts: number | null }
/** PSHT: one push-back event (seq = PSHN). */
export interface PushbackEvent { seq: number; time: Instant | null; kind: string | null; stand: string | null }
/** TIPT: one towing event (seq = order in the message). */
export interface TowEvent { seq: number; time: Instant | null; stand: string | null }

export interface FlightLists {
  stands: Allocation[];          // PSDT  -> flight_stand
  gates: Allocation[];           // GTDT  -> flight_gate
  counters: Allocation[];        // CKDT  -> flight_counter
  belts: Allocation[];           // CLDT  -> flight_belt
  chutes: Allocation[];          // CHDT  -> flight_chute
  bridges: BridgeOp[];           // ABTM  -> flight_bridge
  chocks: ChockEvent[];          // CHOT  -> flight_chock
  delays: Delay[];               // DELY  -> flight_delay
  services: GroundService[];     // SRVT  -> flight_service
  route: RoutePoint[];           // ERUT  -> flight_route_point kind ERUT
  adjacent: RoutePoint[];        // ROUT  -> flight_route_point kind ROUT
  vipGuests: VipGuest[];         // VIPF  -> flight_vip
  pushbacks: PushbackEvent[];    // PSHT  -> flight_pushback
  tows: TowEvent[];              // TIPT  -> flight_tow
}

export type ListName = keyof FlightLists;

export interface FlightState extends FlightFields, FlightLists {
  flid: string;
  /** Local date (YYYY-MM-DD) of the scheduled time when first created. Never changes. */
  operationDay: string;
  deleted: boolean;
  deletedReason: string | null;
  /** +1 per decision that changed this flight (one write = one version). */
  stateVersion: number;
  /** Envelope stamps, set by applyDecision (not by evolve): position as decimal string. */
  lastPosition: string;
  lastMsgId: string | null;
  updatedAt: Instant | null;
  /**
   * Which message (msg id) last set each field and list, by key (`estimatedTime`, `gates`, …): kept
   * by applyDecision in the folded state (write model, flight(asOf)), not in the read model. A
   * replayed message never overwrites what a later message set (domain/stale.ts).
   */
  sources?: Readonly<Record<string, string>>;
}
