/**
 * The part of IATA_AIDX_FlightLegNotifRQ (AIDX 2019.2) that msgx publishes, described in our own
 * words (docs/delivery.md "AIDX"; IATA's schema files are not in this repository: their licence
 * does not allow it). The serializer (aidxXml.ts) writes elements in the order given here, and the
 * schema test checks published messages against this description: order (AIDX uses sequences),
 * how often an element may occur, required attributes and value formats.
 *
 * Only elements msgx fills are listed; each list keeps the schema's relative order, with the
 * schema's elements msgx never writes left out (leaving out an optional element keeps a sequence
 * valid).
 */

/** A value format: a pattern the whole text must match (XSD patterns are anchored). */
export interface Format {
  readonly name: string;
  readonly pattern: RegExp;
}

const fmt = (name: string, pattern: RegExp): Format => ({ name, pattern });

/** Formats of the schema's simple types that msgx writes, as anchored patterns. */
export const FORMATS = {
  /** Two or three letters, or a digit-letter / letter-digit pair (an IATA/ICAO airline designator). */
  airline: fmt('airline designator', /^(?:[A-Z]{2,3}|[0-9][A-Z]|[A-Z][0-9])$/),
  /** Three or four capital letters. */
  station: fmt('airport code', /^[A-Z]{3,4}$/),
  /** One to four digits. */
  flightNumber: fmt('flight number', /^[0-9]{1,4}$/),
  /** One letter. */
  suffix: fmt('operational suffix', /^[A-Za-z]$/),
  /** A calendar date without zone. */
  date: fmt('date', /^\d{4}-\d{2}-\d{2}$/),
  /** A date and time in UTC (msgx always writes `Z`). */
  dateTimeUtc: fmt('UTC date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/),
  /** A decimal number (the message version). */
  decimal: fmt('decimal', /^\d+(?:\.\d+)?$/),
  /** A whole number from 0. */
  nonNegativeInteger: fmt('non-negative integer', /^\d+$/),
  /** One to three digits or capitals, optionally `.XXX` and `.X` (an IATA code). */
  code: fmt('IATA code', /^[0-9A-Z]{1,3}(?:\.[A-Z]{3}(?:\.X)?)?$/),
  /** One capital (SSIM service type). */
  serviceType: fmt('service type', /^[A-Z]$/),
  /** One to three letters or digits (delay reason). */
  alnum1to3: fmt('1-3 letters/digits', /^[0-9a-zA-Z]{1,3}$/),
  /** One to four letters or digits (aircraft type). */
  alnum1to4: fmt('1-4 letters/digits', /^[0-9a-zA-Z]{1,4}$/),
  /** A duration in whole minutes. */
  durationMinutes: fmt('duration', /^PT\d+M$/),
  /** A name token (no spaces). */
  nmtoken: fmt('name token', /^[\w.:-]+$/),
  departureOrArrival: fmt('Departure or Arrival', /^(?:Departure|Arrival)$/),
  usage: fmt('Planned or Actual', /^(?:Planned|Actual)$/),
  specialAction: fmt('Delete, LockDown or DoNotDisplay', /^(?:Delete|LockDown|DoNotDisplay)$/),
  maxLen: (n: number): Format => fmt(`at most ${n} characters`, new RegExp(`^[\\s\\S]{0,${n}}$`)),
  lenRange: (min: number, max: number): Format => fmt(`${min} to ${max} characters`, new RegExp(`^[\\s\\S]{${min},${max}}$`)),
  any: fmt('text', /^[\s\S]*$/),
} as const;

export interface AttrShape {
  readonly name: string;
  readonly required: boolean;
  readonly format: Format;
}

export interface ElementShape {
  readonly name: string;
  readonly min: number;
  /** Most occurrences (Infinity: unbounded). */
  readonly max: number;
  readonly attrs: readonly AttrShape[];
  /** Text content format; absent for an element with element children or none at all. */
  readonly text?: Format;
  /** Children in sequence order. */
  readonly children: readonly ElementShape[];
  /** The schema lets it be sent as `xsi:nil="true"` (empty, attributes kept). */
  readonly nillable?: boolean;
}

const attr = (name: string, format: Format, required = false): AttrShape => ({ name, required, format });

function el(
  name: string,
  min: number,
  max: number,
  parts: { attrs?: readonly AttrShape[]; text?: Format; children?: readonly ElementShape[]; nillable?: boolean } = {},
): ElementShape {
  return {
    name, min, max, attrs: parts.attrs ?? [], ...(parts.text ? { text: parts.text } : {}), children: parts.children ?? [],
    ...(parts.nillable ? { nillable: true } : {}),
  };
}

const F = FORMATS;
const companyId = [attr('CompanyShortName', F.lenRange(1, 32)), attr('Code', F.lenRange(1, 16))];
const codeContext = attr('CodeContext', F.code);

/** LegIdentifier: the leg's key; every part but the suffix is required. */
const legIdentifier = el('LegIdentifier', 1, 1, {
  children: [
    el('Airline', 1, 1, { text: F.airline, attrs: [codeContext] }),
    el('FlightNumber', 1, 1, { text: F.flightNumber }),
    el('OperationalSuffix', 0, 1, { text: F.suffix }),
    el('DepartureAirport', 1, 1, { text: F.station, attrs: [codeContext] }),
    el('ArrivalAirport', 1, 1, { text: F.station, attrs: [codeContext] }),
    el('OriginDate', 1, 1, { text: F.date }),
  ],
});

/** One Resource: resources at our airport for one direction. */
const resource = el('Resource', 0, 2, {
  attrs: [attr('DepartureOrArrival', F.departureOrArrival, true)],
  children: [
    el('AircraftParkingPosition', 0, 1, { text: F.any, attrs: [attr('Qualifier', F.nmtoken, true)] }),
    el('PassengerGate', 0, 3, { text: F.maxLen(5), attrs: [attr('RepeatIndex', F.nonNegativeInteger)] }),
    el('Runway', 0, 1, { text: F.maxLen(4) }),
    el('AircraftTerminal', 0, 1, { text: F.maxLen(2) }),
    el('BaggageClaimUnit', 0, 5, { text: F.any, attrs: [attr('RepeatIndex', F.nonNegativeInteger)] }),
    el('BaggageMakeupBelt', 0, 5, { text: F.any, attrs: [attr('RepeatIndex', F.nonNegativeInteger)] }),
    el('CheckInInfo', 0, 5, {
      attrs: [attr('RepeatIndex', F.nonNegativeInteger)],
      children: [el('FirstPosition', 0, 1, { text: F.maxLen(15) }), el('LastPosition', 0, 1, { text: F.maxLen(15) })],
    }),
  ],
});

const legData = el('LegData', 1, 1, {
  children: [
    el('OperationalStatus', 0, 5, { text: F.code, attrs: [attr('RepeatIndex', F.nonNegativeInteger), attr('CodeContext', F.any)] }),
    el('ServiceType', 0, 1, { text: F.serviceType }),
    el('IrregularityDelay', 0, 8, {
      attrs: [attr('DepartureOrArrival', F.departureOrArrival, true), attr('RepeatIndex', F.nonNegativeInteger)],
      children: [el('ReasonCode', 1, 1, { text: F.alnum1to3 }), el('Duration', 0, 1, { text: F.durationMinutes })],
    }),
    el('AirportResources', 0, 2, { attrs: [attr('Usage', F.usage, true)], children: [resource] }),
    el('OperationTime', 0, 50, {
      text: F.dateTimeUtc,
      nillable: true,
      attrs: [
        attr('OperationQualifier', F.code, true),
        attr('CodeContext', F.any, true),
        attr('RepeatIndex', F.nonNegativeInteger),
        attr('TimeType', F.code),
      ],
    }),
    el('AircraftInfo', 0, 1, {
      children: [el('AircraftType', 0, 2, { text: F.alnum1to4, attrs: [codeContext] }), el('Registration', 0, 1, { text: F.maxLen(10) })],
    }),
  ],
});

/** The message msgx publishes: one FlightLeg per message (one flight changed by one decision). */
export const AIDX_NOTIF_SHAPE: ElementShape = el('IATA_AIDX_FlightLegNotifRQ', 1, 1, {
  attrs: [
    attr('Version', F.decimal, true),
    attr('SequenceNmbr', F.nonNegativeInteger),
    attr('TimeStamp', F.dateTimeUtc),
    attr('TransactionIdentifier', F.lenRange(1, 32)),
    attr('Target', fmt('Test or Production', /^(?:Test|Production)$/)),
  ],
  children: [
    el('Originator', 1, 1, { attrs: companyId }),
    el('FlightLeg', 1, Infinity, {
      children: [legIdentifier, el('SpecialAction', 0, 1, { text: F.specialAction }), legData],
    }),
  ],
});

export const AIDX_NAMESPACE = 'http://www.iata.org/IATA/2007/00';
/** The schema set the published messages follow. */
export const AIDX_VERSION = '19.2';

/** The child shape named `name` of `parent` (throws: a serializer bug, never input). */
export function childShape(parent: ElementShape, name: string): ElementShape {
  const c = parent.children.find((s) => s.name === name);
  if (!c) throw new Error(`AIDX shape: ${parent.name} has no child ${name}`);
  return c;
}
