/**
 * One flight's state → one IATA_AIDX_FlightLegNotifRQ (docs/delivery.md "AIDX", mapping in
 * docs/contract/aidx.md "AIDX out"). Pure. A value that does not fit its AIDX format (a gate code
 * longer than five characters, a status that is not an IATA code…) is left out rather than
 * published invalid; a flight whose leg cannot be identified (no airline designator, no numeric
 * flight number, no other airport) gets no message at all, with the reason.
 * Bounds: one FlightLeg per message; at most the schema's counts of each repeated element
 * (5 statuses, 3 gates, 5 belts/counters, 8 delays, 50 times).
 */
import type { Allocation, FlightState, Instant } from '../flight.ts';
import { AIDX_NOTIF_SHAPE, AIDX_VERSION, childShape, type ElementShape, type Format, FORMATS as F } from './aidxShape.ts';
import { renderAidx, type AidxNode } from './aidxXml.ts';

export interface AidxRules {
  /** MSGX_AIRPORT_IATA: our end of every leg. */
  readonly airport: string;
  /** MSGX_AIDX_ORIGINATOR. */
  readonly originator: string;
}

/** The AIDX target's rules when MSGX_AIDX_OUT is on (docs/delivery.md "AIDX"), else undefined. */
export function aidxRules(cfg: { readonly aidxOut?: boolean; readonly airportIata?: string | undefined; readonly aidxOriginator?: string }): AidxRules | undefined {
  return cfg.aidxOut && cfg.airportIata && cfg.aidxOriginator ? { airport: cfg.airportIata, originator: cfg.aidxOriginator } : undefined;
}

/** Why a flight got no AIDX message (counted by the outbox feeder). */
export type AidxSkipReason = 'no-airline' | 'no-flight-number' | 'no-direction' | 'no-other-airport' | 'no-origin-date';

export type AidxOutcome = { readonly xml: string } | { readonly skipped: AidxSkipReason };

/** The leg's key parts as AIDX writes them. */
export interface AidxLeg {
  readonly airline: string;
  readonly flightNumber: string;
  readonly suffix: string | undefined;
  readonly departure: string;
  readonly arrival: string;
  readonly originDate: string;
}

const LEG = childShape(childShape(AIDX_NOTIF_SHAPE, 'FlightLeg'), 'LegData');
const RESOURCE = childShape(childShape(LEG, 'AirportResources'), 'Resource');

/** `value` when it is text fitting `format` (and XML 1.0 can carry it), else undefined. */
function fitted(value: string | null | undefined, format: Format): string | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  // eslint-disable-next-line no-control-regex
  if (v === '' || /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(v)) return undefined;
  return format.pattern.test(v) ? v : undefined;
}

/** The first `shape.max` of `values` that fit the shape's text format. */
function fitting(values: readonly (string | null)[], shape: ElementShape): string[] {
  const out: string[] = [];
  for (const v of values) {
    const ok = fitted(v, shape.text ?? F.any);
    if (ok !== undefined && !out.includes(ok)) out.push(ok);
    if (out.length >= shape.max) break;
  }
  return out;
}

/**
 * msgx's flight number → AIDX number and operational suffix. The AODB writes it with the airline
 * designator in front (`CA1501`, interface.md FLNO), which is taken off when it is `airline`.
 */
export function splitFlightNumber(flightNo: string | null, airline?: string): { number: string; suffix: string | undefined } | null {
  let no = (flightNo ?? '').trim();
  if (airline && no.toUpperCase().startsWith(airline.toUpperCase())) no = no.slice(airline.length);
  const m = /^\s*0*(\d{1,4})([A-Za-z])?\s*$/.exec(no);
  return m ? { number: m[1]!, suffix: m[2] } : null;
}

/**
 * The other end of the leg: the adjacent station (ROUT: next of a departure, previous of an
 * arrival), else the full route's (ERUT) point after ours (departure) or before ours (arrival).
 */
export function otherAirport(f: FlightState, ours: string): string | undefined {
  const adjacent = [...f.adjacent].sort((a, b) => a.seq - b.seq).map((p) => p.airport.trim().toUpperCase()).filter((a) => a !== ours);
  const first = adjacent.map((a) => fitted(a, F.station)).find((a) => a !== undefined);
  if (first) return first;
  const route = [...f.route].sort((a, b) => a.seq - b.seq).map((p) => p.airport.trim().toUpperCase());
  const at = route.indexOf(ours);
  const candidates = f.direction === 'D'
    ? (at >= 0 ? route.slice(at + 1) : route.slice().reverse())
    : (at >= 0 ? route.slice(0, at).reverse() : route);
  return candidates.filter((a) => a !== ours).map((a) => fitted(a, F.station)).find((a) => a !== undefined);
}

export function aidxLeg(f: FlightState, ours: string): AidxLeg | AidxSkipReason {
  const airline = fitted(f.airline?.toUpperCase(), F.airline);
  if (!airline) return 'no-airline';
  const no = splitFlightNumber(f.flightNo, airline);
  if (!no) return 'no-flight-number';
  if (f.direction !== 'A' && f.direction !== 'D') return 'no-direction';
  const other = otherAirport(f, ours);
  if (!other) return 'no-other-airport';
  const originDate = fitted(f.operationDay, F.date);
  if (!originDate) return 'no-origin-date';
  return {
    airline,
    flightNumber: no.number,
    suffix: no.suffix,
    departure: f.direction === 'D' ? ours : other,
    arrival: f.direction === 'D' ? other : ours,
    originDate,
  };
}

/** An instant as AIDX writes it: UTC, seconds, `Z` (msgx keeps instants in UTC). */
export function aidxTime(t: Instant | null): string | undefined {
  if (t === null) return undefined;
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return undefined;
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

/**
 * (qualifier, time type, value) for every time pair msgx maps (docs/contract/aidx.md "AIDX out"):
 * a known time as its value, an unknown one as null — published `xsi:nil`, so a consumer (and msgx
 * fed its own output) clears a time the flight no longer has.
 */
export function aidxTimes(f: FlightState): { qualifier: string; timeType: string; value: string | null }[] {
  const block = f.direction === 'D' ? 'OFB' : 'ONB';
  const pairs: [string, string, Instant | null][] = [
    [block, 'SCT', f.scheduledTime],
    [block, 'EST', f.estimatedTime ?? (f.direction === 'D' ? f.eobt : null)],
    [block, 'ACT', f.actualTime],
  ];
  if (f.direction === 'D') {
    pairs.push(['OFB', 'TAR', f.tobt], ['OFB', 'CAL', f.cobt], ['TKO', 'CAL', f.ctot]);
  }
  return pairs.map(([qualifier, timeType, t]) => ({ qualifier, timeType, value: aidxTime(t) ?? null }));
}

/** The allocation codes of a resource list, latest allocation first (seq order otherwise). */
function codes(list: readonly Allocation[]): string[] {
  return [...list].sort((a, b) => a.seq - b.seq).map((a) => a.code);
}

function resourceNode(f: FlightState): AidxNode | undefined {
  const kids: Record<string, AidxNode[]> = {};
  const stand = fitted(f.currentStand ?? codes(f.stands).at(-1) ?? null, childShape(RESOURCE, 'AircraftParkingPosition').text!);
  if (stand) kids.AircraftParkingPosition = [{ text: stand, attrs: { Qualifier: 'STAND' } }];
  const gates = fitting(codes(f.gates), childShape(RESOURCE, 'PassengerGate'));
  if (gates.length) kids.PassengerGate = gates.map((g, i) => ({ text: g, attrs: { RepeatIndex: String(i + 1) } }));
  const runway = fitted(f.runway, childShape(RESOURCE, 'Runway').text!);
  if (runway) kids.Runway = [{ text: runway }];
  const terminal = fitted(f.terminal, childShape(RESOURCE, 'AircraftTerminal').text!);
  if (terminal) kids.AircraftTerminal = [{ text: terminal }];
  if (f.direction === 'A') {
    const belts = fitting(codes(f.belts), childShape(RESOURCE, 'BaggageClaimUnit'));
    if (belts.length) kids.BaggageClaimUnit = belts.map((b, i) => ({ text: b, attrs: { RepeatIndex: String(i + 1) } }));
  } else {
    const chutes = fitting(codes(f.chutes), childShape(RESOURCE, 'BaggageMakeupBelt'));
    if (chutes.length) kids.BaggageMakeupBelt = chutes.map((b, i) => ({ text: b, attrs: { RepeatIndex: String(i + 1) } }));
    const counters = fitting(codes(f.counters), childShape(childShape(RESOURCE, 'CheckInInfo'), 'FirstPosition'));
    if (counters.length) {
      kids.CheckInInfo = [{ kids: { FirstPosition: [{ text: counters[0]! }], LastPosition: [{ text: counters.at(-1)! }] }, attrs: { RepeatIndex: '1' } }];
    }
  }
  if (Object.keys(kids).length === 0) return undefined;
  return { attrs: { DepartureOrArrival: f.direction === 'D' ? 'Departure' : 'Arrival' }, kids };
}

function legDataNode(f: FlightState): AidxNode {
  const kids: Record<string, AidxNode[]> = {};
  const status = fitted(f.status?.toUpperCase(), F.code);
  if (status) kids.OperationalStatus = [{ text: status, attrs: { RepeatIndex: '1' } }];
  const service = fitted(f.serviceType?.toUpperCase(), F.serviceType);
  if (service) kids.ServiceType = [{ text: service }];
  const side = f.direction === 'D' ? 'Departure' : 'Arrival';
  const delays = f.delays
    .map((d) => ({ code: fitted(d.code, F.alnum1to3), minutes: d.durationMinutes }))
    .filter((d): d is { code: string; minutes: number | null } => d.code !== undefined)
    .slice(0, childShape(LEG, 'IrregularityDelay').max);
  if (delays.length) {
    kids.IrregularityDelay = delays.map((d, i) => ({
      attrs: { DepartureOrArrival: side, RepeatIndex: String(i + 1) },
      kids: {
        ReasonCode: [{ text: d.code }],
        ...(d.minutes !== null && Number.isInteger(d.minutes) && d.minutes >= 0 ? { Duration: [{ text: `PT${d.minutes}M` }] } : {}),
      },
    }));
  }
  // No CodeShareInfo (docs/contract/aidx.md "Code shares"): it lists the marketing flights of an
  // operating leg, while msgx's master fields name the operating flight of a marketing one — and
  // AIDX has no element for "operated by".
  const resource = resourceNode(f);
  if (resource) kids.AirportResources = [{ attrs: { Usage: 'Actual' }, kids: { Resource: [resource] } }];
  const times = aidxTimes(f);
  if (times.length) {
    kids.OperationTime = times.map((t) => ({
      ...(t.value === null ? { nil: true as const } : { text: t.value }),
      attrs: { OperationQualifier: t.qualifier, TimeType: t.timeType, CodeContext: '9750' },
    }));
  }
  const type = fitted(f.aircraftType, F.alnum1to4);
  const registration = fitted(f.registration, F.maxLen(10));
  if (type || registration) {
    kids.AircraftInfo = [{ kids: { ...(type ? { AircraftType: [{ text: type }] } : {}), ...(registration ? { Registration: [{ text: registration }] } : {}) } }];
  }
  return { kids };
}

/**
 * The AIDX message of flight `f` as of the decision at `position` (SequenceNmbr). `recordedAt`
 * (the decision's time) is the TimeStamp.
 */
export function aidxMessage(f: FlightState, position: string, recordedAt: Instant, rules: AidxRules): AidxOutcome {
  const leg = aidxLeg(f, rules.airport);
  if (typeof leg === 'string') return { skipped: leg };
  const legIdentifier: AidxNode = {
    kids: {
      Airline: [{ text: leg.airline }],
      FlightNumber: [{ text: leg.flightNumber }],
      ...(leg.suffix ? { OperationalSuffix: [{ text: leg.suffix }] } : {}),
      DepartureAirport: [{ text: leg.departure }],
      ArrivalAirport: [{ text: leg.arrival }],
      OriginDate: [{ text: leg.originDate }],
    },
  };
  const flightLeg: AidxNode = {
    kids: {
      LegIdentifier: [legIdentifier],
      ...(f.deleted ? { SpecialAction: [{ text: 'Delete' }] } : {}),
      LegData: [legDataNode(f)],
    },
  };
  const root: AidxNode = {
    attrs: {
      Version: AIDX_VERSION,
      SequenceNmbr: position,
      TimeStamp: aidxTime(recordedAt),
      TransactionIdentifier: `${position}-${f.flid}`.slice(0, 32),
      Target: 'Production',
    },
    kids: {
      Originator: [{ attrs: { CompanyShortName: rules.originator, Code: rules.originator } }],
      FlightLeg: [flightLeg],
    },
  };
  return { xml: renderAidx(AIDX_NOTIF_SHAPE, root) };
}
