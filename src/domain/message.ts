/**
 * Decoded messages: what the codec produces and `decide` consumes. A discriminated union on `type`.
 *
 * Patches follow the catalogue's rule: a key that is absent (`undefined`) leaves the field
 * unchanged, `null` clears it (the element was present but empty).
 */
import type { FlopFieldStyp, FlopListStyp, SchdStyp } from './catalogue.ts';
import type { Direction, FlightFields, FlightLists, Instant, ListName } from './flight.ts';
import type { SeasonalFlight } from './reference/changes.ts';
import type { ReferenceStyp, SeasonalStyp } from './reference/kinds.ts';
import type { RefFields, RefValue } from './reference/record.ts';

/** The envelope (`MSG/META`), validated. TYPE/STYP are normalized (`TYPE=FDEL` → FLOP/FDEL). */
export interface Meta {
  sndr: string;
  /** SEQN as a canonical decimal string (int64 does not fit a JS number). */
  seqn: string;
  /** DTTM as sent (`yyyyMMddHHmmss`, local airport time); `DDTM` is accepted as an alias. */
  dttm: string;
  /** DTTM as a UTC instant. */
  sentAt: Instant;
  /** Local date (YYYY-MM-DD) of DTTM in the airport zone: the message's "today". */
  localDate: string;
  type: string;
  styp: string;
  /** TYPE/STYP as sent (trimmed, upper-cased), before the FDEL normalization. */
  rawType: string;
  rawStyp: string;
  rcvr: string | null;
  mgid: string | null;
  /** On a SCHD/RESP: the id of the request it answers. */
  rmid: string | null;
}

export type FieldPatch = Partial<FlightFields>;
export type ListPatch = Partial<FlightLists>;

/** One list replacement, typed by list kind. */
export type ListReplacement = { [K in ListName]: { list: K; items: FlightLists[K] } }[ListName];

/** One full flight record (`FLTR`) of a SCHD message. */
export interface FlightRecord {
  flid: string;
  /** SODT (required in a record). */
  scheduledTime: Instant;
  /** Local date of SODT: the operation day this record would give a new flight. */
  operationDay: string;
  /** Fields the record carries (absent elements are absent keys). Includes scheduledTime. */
  fields: FieldPatch;
  /** Lists the record carries; an absent list element is an absent key. */
  lists: ListPatch;
}

export type FlopAction =
  | { kind: 'set-fields'; fields: FieldPatch }
  | ({ kind: 'replace-list' } & ListReplacement)
  | { kind: 'delete' };

/** One `<FLOP>` block: the target flight and what the subtype does to it. */
export interface FlopOp {
  flid: string;
  ffid: string | null;
  action: FlopAction;
}

export interface SchdMessage {
  type: 'SCHD';
  styp: SchdStyp;
  meta: Meta;
  /** `RECS` as sent (checked against the number of FLTR records), null when absent. */
  declaredRecords: number | null;
  records: FlightRecord[];
}

export interface FlopMessage {
  type: 'FLOP';
  styp: FlopFieldStyp | FlopListStyp | 'FDEL';
  meta: Meta;
  /** One per `<FLOP>` block, in message order. */
  ops: FlopOp[];
}

/** One record of a reference message: its elements (DEL/ADD/DNLD) or its patch (UPD). */
export interface ReferenceRecordIn {
  /** 1-based place among the message's records. */
  index: number;
  /** The key element's text; null: a keyless record (listed and skipped). */
  code: string | null;
  /** Elements with a value (empty ones left out). */
  fields: RefFields;
  /** UPD: every element present, empty ones as null (clear). */
  patch: Readonly<Record<string, RefValue | null>>;
}

/** Reference data (reference.md): records directly under MSG, named after TYPE. */
export interface ReferenceMessage {
  type: 'REFERENCE';
  /** The kind (TYPE), e.g. AIRL. */
  kind: string;
  styp: ReferenceStyp;
  meta: Meta;
  /** RECS as sent (a hint only), null when absent or not a number. */
  declaredRecords: number | null;
  records: ReferenceRecordIn[];
}

/** A record of a seasonal schedule that cannot be planned (listed in the decision). */
export interface SeasonalRecordSkipped {
  index: number;
  reason: 'invalid-period' | 'invalid-dyop';
  detail: string;
}

/** SCHS DNLD/RESP: the whole schedule of one season. */
export interface SeasonalMessage {
  type: 'SCHS';
  styp: SeasonalStyp;
  meta: Meta;
  season: string;
  startDate: string | null;
  endDate: string | null;
  declaredRecords: number | null;
  flights: SeasonalFlight[];
  skippedRecords: SeasonalRecordSkipped[];
}

export type Message = SchdMessage | FlopMessage | ReferenceMessage | SeasonalMessage | AidxMessage;

/**
 * IATA AIDX (docs/contract/aidx.md): one `IATA_AIDX_FlightLegNotifRQ`, bare or in a feed's wrapper.
 * The leg key names the flight; msgx assigns the flid when it decides (handlers/aidx.ts).
 */
export interface AidxLegKey {
  airline: string;
  flightNumber: string;
  /** OperationalSuffix, null when absent. */
  suffix: string | null;
  departureAirport: string;
  arrivalAirport: string;
  /** OriginDate, YYYY-MM-DD. */
  originDate: string;
  /** From MSGX_AIRPORT_IATA: D when the departure airport is ours, else A. */
  direction: Direction;
}

/** An OperationTime msgx has no field for: kept in the decision (value null = xsi:nil). */
export interface AidxTime { qualifier: string; timeType: string; repeatIndex: string | null; value: Instant | null }

export interface AidxStatus { code: string; repeatIndex: string | null; codeContext: string | null }

export interface AidxLeg {
  /** 1-based place among the message's FlightLeg elements. */
  index: number;
  key: AidxLegKey;
  repeatNumber: number | null;
  /** Local date of the scheduled time (else OriginDate): the operation day a new flight gets. */
  operationDay: string;
  /** SpecialAction as sent (Delete, LockDown, DoNotDisplay), null when absent. */
  specialAction: string | null;
  /** Fields the leg sets (absent = unchanged, null = cleared). Status-derived fields are the handler's. */
  fields: FieldPatch;
  lists: ListPatch;
  /** OperationalStatus elements in message order, null when the leg has none. */
  statuses: AidxStatus[] | null;
  unmappedTimes: AidxTime[];
  codeShares: string[];
  /** Elements kept but not used (unknown names, TPA_Extension), as `path` strings. */
  kept: string[];
}

export interface AidxMessage {
  type: 'AIDX';
  styp: 'FLEG';
  meta: Meta;
  version: string;
  /** The sender as identity uses it (Originator / DeliveringSystem / wrapper SendingSystem). */
  sender: string;
  /** SequenceNmbr or the wrapper's SequenceNumber; null: no identity. */
  sequence: string | null;
  /** The wrapper header's leaf values (name → text), null when the message is bare. */
  header: Readonly<Record<string, string>> | null;
  legs: AidxLeg[];
  /** Legs that touch neither airport, left out (leg index and the airports). */
  otherAirportLegs: string[];
}
