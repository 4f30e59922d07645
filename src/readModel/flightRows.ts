/**
 * FlightState ↔ read-model rows: the one mapping between the domain's flight and `flight_schd`,
 * the nine detail tables and `flight_route_point`. Pure (no SQL runs here): the flight projector
 * uses it to write rows, the projector's row-backed store and the read API use it to read them
 * back into a FlightState.
 *
 * Rows are written for a flight as a whole: every detail row carries the flight's `updated_at`
 * (the recorded time of its last change), so the rows are a function of the state alone and a
 * rebuild reproduces them exactly.
 *
 * Lossless for every state the codec can produce: the columns a table lacks are fields the
 * corresponding message element never carries (stands have no class/kind/actual times, gates no
 * class); reading back leaves them null.
 */
import type {
  Allocation, BridgeOp, ChockEvent, Delay, FlightLists, FlightState, GroundService, ListName, PushbackEvent,
  RoutePoint, TowEvent, VipGuest,
} from '../domain/flight.ts';
import { LIST_NAMES, emptyLists, orderList } from '../domain/lists.ts';
import type { CellValue, ColumnSpec, SqlType } from '../platform/sqlBatch.ts';

/** A row as node-pg returns it for a SELECT built with `selectList` (instants as ISO UTC text). */
export type DbRow = Record<string, unknown>;

const col = (name: string, type: SqlType): ColumnSpec => ({ name, type });

// ---------------------------------------------------------------- flight_schd

type ScalarKey = Exclude<keyof FlightState, ListName>;

/** A field that is never null (read back as a string or number, not as null). */
const REQUIRED = 'required';

/**
 * flight_schd's columns: the field, the column, its SQL type and whether it is never null. The
 * one place a flight column is named: the row is written (flightRow) and read back
 * (flightFromRows) from this table, by the column's type.
 */
const FLIGHT_MAP: readonly (readonly [ScalarKey, string, SqlType, typeof REQUIRED?])[] = [
  ['flid', 'flid', 'bigint', REQUIRED],
  ['ffid', 'ffid', 'text'],
  ['operationDay', 'operation_day', 'date', REQUIRED],
  ['airline', 'airline', 'text'],
  ['flightNo', 'flight_no', 'text'],
  ['direction', 'direction', 'text'],
  ['scheduledTime', 'scheduled_time', 'timestamptz'],
  ['estimatedTime', 'estimated_time', 'timestamptz'],
  ['actualTime', 'actual_time', 'timestamptz'],
  ['prevActualDeparture', 'prev_actual_departure', 'timestamptz'],
  ['serviceType', 'service_type', 'text'],
  ['flightNature', 'flight_nature', 'text'],
  ['aircraftType', 'aircraft_type', 'text'],
  ['registration', 'registration', 'text'],
  ['terminal', 'terminal', 'text'],
  ['currentStand', 'current_stand', 'text'],
  ['linkAirline', 'link_airline', 'text'],
  ['linkFlightNo', 'link_flight_no', 'text'],
  ['linkFlid', 'link_flid', 'bigint'],
  ['masterAirline', 'master_airline', 'text'],
  ['masterFlightNo', 'master_flight_no', 'text'],
  ['masterFlid', 'master_flid', 'bigint'],
  ['boardingOpen', 'boarding_open', 'timestamptz'],
  ['lastCall', 'last_call', 'timestamptz'],
  ['boardingClosed', 'boarding_closed', 'timestamptz'],
  ['cancelTime', 'cancel_time', 'timestamptz'],
  ['status', 'status', 'text'],
  ['publicStatus', 'public_status', 'text'],
  ['publicRemark', 'public_remark', 'text'],
  ['diversionAirport', 'diversion_airport', 'text'],
  ['diversionDirection', 'diversion_direction', 'text'],
  ['returnType', 'return_type', 'text'],
  ['agentPassenger', 'agent_passenger', 'text'],
  ['agentField', 'agent_field', 'text'],
  ['agentMaintenance', 'agent_maintenance', 'text'],
  ['eobt', 'eobt', 'timestamptz'],
  ['tobt', 'tobt', 'timestamptz'],
  ['cobt', 'cobt', 'timestamptz'],
  ['ctot', 'ctot', 'timestamptz'],
  ['iest', 'iest', 'timestamptz'],
  ['appt', 'appt', 'timestamptz'],
  ['egsr', 'egsr', 'timestamptz'],
  ['egst', 'egst', 'timestamptz'],
  ['prevEstimatedDeparture', 'prev_estimated_departure', 'timestamptz'],
  ['nextEstimatedArrival', 'next_estimated_arrival', 'timestamptz'],
  ['nextActualArrival', 'next_actual_arrival', 'timestamptz'],
  ['abnormalReason', 'abnormal_reason', 'text'],
  ['abnormalRemark', 'abnormal_remark', 'text'],
  ['maxPassengers', 'max_passengers', 'integer'],
  ['remark', 'remark', 'text'],
  ['runway', 'runway', 'text'],
  ['vipPassengers', 'vip_passengers', 'integer'],
  ['vipReserved', 'vip_reserved', 'integer'],
  ['portTime', 'port_time', 'timestamptz'],
  ['portCode', 'port_code', 'text'],
  ['deleted', 'deleted', 'boolean'],
  ['deletedReason', 'deleted_reason', 'text'],
  ['stateVersion', 'state_version', 'integer', REQUIRED],
  ['lastPosition', 'last_position', 'bigint', REQUIRED],
  ['lastMsgId', 'last_msg_id', 'bigint'],
  ['updatedAt', 'updated_at', 'timestamptz'],
  ['sources', 'field_sources', 'jsonb'],
];

export const FLIGHT_TABLE = 'flight_schd';
export const FLIGHT_COLUMNS: readonly ColumnSpec[] = FLIGHT_MAP.map(([, name, type]) => col(name, type));

/** The flight_schd row of a state, in FLIGHT_COLUMNS order. */
export function flightRow(s: FlightState): CellValue[] {
  return FLIGHT_MAP.map(([key, , type]) => (type === 'jsonb' ? jsonCell(s[key]) : (s[key] as CellValue)));
}

// ---------------------------------------------------------------- detail tables

export const DETAIL_TABLES = [
  'flight_stand', 'flight_gate', 'flight_counter', 'flight_belt', 'flight_chute',
  'flight_bridge', 'flight_chock', 'flight_delay', 'flight_service', 'flight_route_point',
  'flight_vip', 'flight_pushback', 'flight_tow',
] as const;
export type DetailTable = (typeof DETAIL_TABLES)[number];

interface ListMapping<T> {
  readonly table: DetailTable;
  /** Columns after `flid` and before `updated_at`. */
  readonly columns: readonly ColumnSpec[];
  /** Only for flight_route_point, which holds two lists: rows of this list have this `kind`. */
  readonly kind?: 'ERUT' | 'ROUT';
  toCells(item: T, index: number): CellValue[];
  fromRow(row: DbRow): T;
}

const ALLOCATION_COLUMNS = {
  stands: [col('seq_no', 'integer'), col('stand_code', 'text'), col('start_time', 'timestamptz'), col('end_time', 'timestamptz')],
  gates: [
    col('seq_no', 'integer'), col('gate_code', 'text'), col('planned_open', 'timestamptz'), col('planned_close', 'timestamptz'),
    col('actual_open', 'timestamptz'), col('actual_close', 'timestamptz'), col('kind', 'text'),
  ],
  counters: [
    col('seq_no', 'integer'), col('counter_code', 'text'), col('class', 'text'), col('planned_open', 'timestamptz'),
    col('planned_close', 'timestamptz'), col('actual_open', 'timestamptz'), col('actual_close', 'timestamptz'), col('kind', 'text'),
  ],
  belts: [
    col('seq_no', 'integer'), col('belt_code', 'text'), col('class', 'text'), col('planned_open', 'timestamptz'),
    col('planned_close', 'timestamptz'), col('first_bag', 'timestamptz'), col('last_bag', 'timestamptz'), col('kind', 'text'),
  ],
  chutes: [
    col('seq_no', 'integer'), col('chute_code', 'text'), col('class', 'text'), col('planned_start', 'timestamptz'),
    col('planned_end', 'timestamptz'), col('actual_start', 'timestamptz'), col('actual_end', 'timestamptz'), col('kind', 'text'),
  ],
} as const;

const ROUTE_COLUMNS = [
  col('kind', 'text'), col('seq_no', 'integer'), col('airport', 'text'),
  col('scheduled_arrival', 'timestamptz'), col('scheduled_departure', 'timestamptz'),
];

/** Instant columns come back as ISO UTC text (`selectList`) or as Date: both → ISO UTC. */
export function instant(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' && ISO_UTC.test(v)) return v;
  return (v instanceof Date ? v : new Date(String(v))).toISOString();
}
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const jsonCell = (v: unknown): CellValue => (v === undefined || v === null ? null : JSON.stringify(v));
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const int = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const req = (v: unknown): string => String(v);

function allocation(
  table: DetailTable,
  columns: readonly ColumnSpec[],
  shape: { code: string; cls?: string; kind?: string; ss: string; se: string; as?: string; ae?: string },
): ListMapping<Allocation> {
  return {
    table,
    columns,
    toCells: (a: Allocation) => {
      const cells: CellValue[] = [a.seq, a.code];
      if (shape.cls) cells.push(a.class);
      cells.push(a.scheduledStart, a.scheduledEnd);
      if (shape.as) cells.push(a.actualStart, a.actualEnd);
      if (shape.kind) cells.push(a.kind);
      return cells;
    },
    fromRow: (r) => ({
      seq: Number(r.seq_no),
      code: req(r[shape.code]),
      class: shape.cls ? text(r[shape.cls]) : null,
      kind: shape.kind ? text(r[shape.kind]) : null,
      scheduledStart: instant(r[shape.ss]),
      scheduledEnd: instant(r[shape.se]),
      actualStart: shape.as ? instant(r[shape.as]) : null,
      actualEnd: shape.ae ? instant(r[shape.ae]) : null,
    }),
  };
}

function routeList(kind: 'ERUT' | 'ROUT'): ListMapping<RoutePoint> {
  return {
    table: 'flight_route_point',
    columns: ROUTE_COLUMNS,
    kind,
    toCells: (p: RoutePoint) => [kind, p.seq, p.airport, p.scheduledArrival, p.scheduledDeparture],
    fromRow: (r) => ({
      seq: Number(r.seq_no),
      airport: req(r.airport),
      scheduledArrival: instant(r.scheduled_arrival),
      scheduledDeparture: instant(r.scheduled_departure),
    }),
  };
}

type ListMappings = { readonly [K in ListName]: ListMapping<FlightLists[K][number]> };

export const LIST_MAPPINGS: ListMappings = {
  stands: allocation('flight_stand', ALLOCATION_COLUMNS.stands, { code: 'stand_code', ss: 'start_time', se: 'end_time' }),
  gates: allocation('flight_gate', ALLOCATION_COLUMNS.gates, {
    code: 'gate_code', kind: 'kind', ss: 'planned_open', se: 'planned_close', as: 'actual_open', ae: 'actual_close',
  }),
  counters: allocation('flight_counter', ALLOCATION_COLUMNS.counters, {
    code: 'counter_code', cls: 'class', kind: 'kind', ss: 'planned_open', se: 'planned_close', as: 'actual_open', ae: 'actual_close',
  }),
  belts: allocation('flight_belt', ALLOCATION_COLUMNS.belts, {
    code: 'belt_code', cls: 'class', kind: 'kind', ss: 'planned_open', se: 'planned_close', as: 'first_bag', ae: 'last_bag',
  }),
  chutes: allocation('flight_chute', ALLOCATION_COLUMNS.chutes, {
    code: 'chute_code', cls: 'class', kind: 'kind', ss: 'planned_start', se: 'planned_end', as: 'actual_start', ae: 'actual_end',
  }),
  bridges: {
    table: 'flight_bridge',
    columns: [col('seq_no', 'integer'), col('bridge_code', 'text'), col('operation', 'text'), col('op_time', 'timestamptz')],
    toCells: (b: BridgeOp) => [b.seq, b.bridge, b.operation, b.time],
    fromRow: (r) => ({ seq: Number(r.seq_no), bridge: req(r.bridge_code), operation: text(r.operation), time: instant(r.op_time) }),
  },
  chocks: {
    table: 'flight_chock',
    columns: [col('seq_no', 'integer'), col('stand_code', 'text'), col('on_off', 'text'), col('chock_time', 'timestamptz')],
    toCells: (c: ChockEvent) => [c.seq, c.stand, c.onOff, c.time],
    fromRow: (r) => ({ seq: Number(r.seq_no), stand: text(r.stand_code), onOff: text(r.on_off), time: instant(r.chock_time) }),
  },
  delays: {
    table: 'flight_delay',
    columns: [col('code', 'text'), col('start_time', 'timestamptz'), col('duration_min', 'integer')],
    toCells: (d: Delay) => [d.code, d.start, d.durationMinutes],
    fromRow: (r) => ({ code: req(r.code), start: instant(r.start_time), durationMinutes: int(r.duration_min) }),
  },
  services: {
    table: 'flight_service',
    columns: [
      col('seq_no', 'integer'), col('code', 'text'), col('qty', 'integer'), col('start_time', 'timestamptz'),
      col('end_time', 'timestamptz'), col('provider', 'text'), col('abnormal_reason', 'text'), col('abnormal_remark', 'text'),
    ],
    // seq_no is the item's 1-based place in the flight's (canonically ordered) list.
    toCells: (s: GroundService, i: number) => [i + 1, s.code, s.quantity, s.start, s.end, s.provider, s.abnormalReason, s.abnormalRemark],
    fromRow: (r) => ({
      code: req(r.code), quantity: int(r.qty), start: instant(r.start_time), end: instant(r.end_time),
      provider: text(r.provider), abnormalReason: text(r.abnormal_reason), abnormalRemark: text(r.abnormal_remark),
    }),
  },
  route: routeList('ERUT'),
  adjacent: routeList('ROUT'),
  vipGuests: {
    table: 'flight_vip',
    columns: [col('seq_no', 'integer'), col('vip_code', 'text'), col('escorts', 'integer')],
    toCells: (v: VipGuest) => [v.seq, v.code, v.escorts],
    fromRow: (r) => ({ seq: Number(r.seq_no), code: req(r.vip_code), escorts: int(r.escorts) }),
  },
  pushbacks: {
    table: 'flight_pushback',
    columns: [col('seq_no', 'integer'), col('push_time', 'timestamptz'), col('kind', 'text'), col('stand_code', 'text')],
    toCells: (p: PushbackEvent) => [p.seq, p.time, p.kind, p.stand],
    fromRow: (r) => ({ seq: Number(r.seq_no), time: instant(r.push_time), kind: text(r.kind), stand: text(r.stand_code) }),
  },
  tows: {
    table: 'flight_tow',
    columns: [col('seq_no', 'integer'), col('tow_time', 'timestamptz'), col('stand_code', 'text')],
    toCells: (w: TowEvent) => [w.seq, w.time, w.stand],
    fromRow: (r) => ({ seq: Number(r.seq_no), time: instant(r.tow_time), stand: text(r.stand_code) }),
  },
};

export interface DetailTableSpec {
  readonly table: DetailTable;
  /** All columns in insert order: flid, the list's columns, updated_at. */
  readonly columns: readonly ColumnSpec[];
  /** The lists stored in this table (two for flight_route_point). */
  readonly lists: readonly ListName[];
}

export const DETAIL_SPECS: readonly DetailTableSpec[] = DETAIL_TABLES.map((table) => {
  const lists = LIST_NAMES.filter((l) => LIST_MAPPINGS[l].table === table);
  const first = LIST_MAPPINGS[lists[0]!];
  return { table, lists, columns: [col('flid', 'bigint'), ...first.columns, col('updated_at', 'timestamptz')] };
});

/** Rows of `table` for one flight, each in the spec's column order. */
export function detailRows(spec: DetailTableSpec, s: FlightState): CellValue[][] {
  const rows: CellValue[][] = [];
  for (const list of spec.lists) {
    const m = LIST_MAPPINGS[list] as ListMapping<unknown>;
    const items = s[list] as unknown[];
    items.forEach((item, i) => rows.push([s.flid, ...m.toCells(item, i), s.updatedAt]));
  }
  return rows;
}

// ---------------------------------------------------------------- reading back

/**
 * SELECT list for `columns`: dates come back as text (node-pg would turn them into local Dates),
 * instants as ISO UTC text exactly as Date#toISOString prints it — formatted by the server, so a
 * board of thousands of flights does not parse a Date per instant in node-pg and print it again.
 */
export function selectList(columns: readonly ColumnSpec[]): string {
  return columns
    .map((c) =>
      c.type === 'date'
        ? `${c.name}::text AS ${c.name}`
        : c.type === 'timestamptz'
          ? `to_char(${c.name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${c.name}`
          : c.name,
    )
    .join(', ');
}

/** Put a detail row (selected with `selectList(spec.columns)`) into the lists of its flight. */
export function addDetailRow(lists: FlightLists, spec: DetailTableSpec, row: DbRow): void {
  const list = spec.lists.length === 1 ? spec.lists[0]! : spec.lists.find((l) => LIST_MAPPINGS[l].kind === row.kind);
  if (list === undefined) throw new Error(`${spec.table}: row of unknown kind ${String(row.kind)}`);
  const m = LIST_MAPPINGS[list] as ListMapping<unknown>;
  (lists[list] as unknown[]).push(m.fromRow(row));
}

/**
 * A flight_schd cell as its field, by the column's SQL type: instants as ISO UTC text, bigints and
 * dates as text, integers as numbers, booleans true only when true; null stays null unless the
 * column is REQUIRED. A jsonb cell (node-pg parses it; JSON text is parsed here) is absent when null.
 */
function fieldOf(type: SqlType, v: unknown, required: boolean): unknown {
  switch (type) {
    case 'timestamptz':
      return instant(v);
    case 'integer':
      return required ? Number(v) : int(v);
    case 'boolean':
      return v === true;
    case 'jsonb':
      return v === null || v === undefined ? undefined : typeof v === 'string' ? JSON.parse(v) : v;
    default:
      return required ? req(v) : text(v);
  }
}

/** The FlightState of a flight_schd row (selected with `selectList(FLIGHT_COLUMNS)`) and its lists. */
export function flightFromRows(row: DbRow, lists: FlightLists = emptyLists()): FlightState {
  const state: Record<string, unknown> = {};
  for (const [key, name, type, required] of FLIGHT_MAP) {
    const value = fieldOf(type, row[name], required === REQUIRED);
    if (value !== undefined) state[key] = value;
  }
  for (const l of LIST_NAMES) state[l] = orderList(l, lists[l]);
  // The table covers every scalar field of FlightState (ScalarKey), the loop above every list.
  return state as unknown as FlightState;
}

/**
 * Whole flights from the rows of flight_schd and the detail tables (any order, any number of
 * flights). Detail rows whose flight row is missing are ignored. Returns flights by flid.
 */
export function flightsFromRows(
  flightRows: readonly DbRow[],
  detailRows: ReadonlyMap<DetailTable, readonly DbRow[]>,
): Map<string, FlightState> {
  const lists = new Map<string, FlightLists>();
  for (const r of flightRows) lists.set(req(r.flid), emptyLists());
  for (const spec of DETAIL_SPECS) {
    for (const r of detailRows.get(spec.table) ?? []) {
      const own = lists.get(req(r.flid));
      if (own) addDetailRow(own, spec, r);
    }
  }
  const out = new Map<string, FlightState>();
  for (const r of flightRows) out.set(req(r.flid), flightFromRows(r, lists.get(req(r.flid))));
  return out;
}
