/**
 * AIDX FlightLegNotifRQ documents for tests, written in our own words from the message shape of
 * docs/contract/aidx.md (no IATA file is copied). `leg()` builds one FlightLeg; `notif()` the
 * message around legs; `wrapped()` puts it in a feed's own header, as real AODB feeds do.
 */
export const NS = 'http://www.iata.org/IATA/2007/00';

export interface LegSpec {
  airline?: string;
  number?: string;
  suffix?: string;
  dep?: string;
  arr?: string;
  originDate?: string;
  repeat?: number;
  /** SpecialAction text (Delete…). */
  special?: string;
  /** Raw XML inside LegData, in AIDX order (use the helpers below). */
  data?: string;
  /** Raw XML after LegData (TPA_Extension…). */
  after?: string;
}

/** Element name with the test's prefix (`p` = '' for a default namespace). */
const el = (p: string, name: string) => (p === '' ? name : `${p}:${name}`);

export function leg(s: LegSpec, p = 'aidx'): string {
  const e = (n: string) => el(p, n);
  const id = [
    `<${e('Airline')} CodeContext="IATA">${s.airline ?? 'CA'}</${e('Airline')}>`,
    `<${e('FlightNumber')}>${s.number ?? '1501'}</${e('FlightNumber')}>`,
    s.suffix ? `<${e('OperationalSuffix')}>${s.suffix}</${e('OperationalSuffix')}>` : '',
    `<${e('DepartureAirport')} CodeContext="3">${s.dep ?? 'PEK'}</${e('DepartureAirport')}>`,
    `<${e('ArrivalAirport')} CodeContext="3">${s.arr ?? 'SHA'}</${e('ArrivalAirport')}>`,
    `<${e('OriginDate')}>${s.originDate ?? '2025-03-14'}</${e('OriginDate')}>`,
    s.repeat !== undefined ? `<${e('RepeatNumber')}>${s.repeat}</${e('RepeatNumber')}>` : '',
  ].join('');
  return [
    `<${e('FlightLeg')}>`,
    `<${e('LegIdentifier')}>${id}</${e('LegIdentifier')}>`,
    s.special ? `<${e('SpecialAction')}>${s.special}</${e('SpecialAction')}>` : '',
    s.data !== undefined ? `<${e('LegData')}>${s.data}</${e('LegData')}>` : '',
    s.after ?? '',
    `</${e('FlightLeg')}>`,
  ].join('');
}

export interface NotifSpec {
  version?: string;
  seq?: string;
  timeStamp?: string;
  originator?: string;
  /** The prefix of the AIDX namespace: 'aidx', 'x', or '' for a default namespace. */
  prefix?: string;
}

export function notif(legs: readonly string[], s: NotifSpec = {}): string {
  const p = s.prefix ?? 'aidx';
  const xmlns = p === '' ? `xmlns="${NS}"` : `xmlns:${p}="${NS}"`;
  const attrs = [
    `Version="${s.version ?? '21.3'}"`,
    s.seq !== undefined ? `SequenceNmbr="${s.seq}"` : '',
    `TimeStamp="${s.timeStamp ?? '2025-03-14T00:05:00Z'}"`,
  ].filter((a) => a !== '').join(' ');
  return `<${el(p, 'IATA_AIDX_FlightLegNotifRQ')} ${xmlns} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ${attrs}>`
    + `<${el(p, 'Originator')} CompanyShortName="${s.originator ?? 'AODB'}" Code="${s.originator ?? 'AODB'}"/>`
    + legs.join('')
    + `</${el(p, 'IATA_AIDX_FlightLegNotifRQ')}>`;
}

/** A feed's own wrapper header around the AIDX element (its prefix `x`, another namespace). */
export function wrapped(aidx: string, header: { seq?: string; system?: string; type?: string } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?><x:Airport_FlightLegNotifRQ xmlns:x="urn:example:feed">`
    + `<x:Header>${header.seq ? `<x:SequenceNumber>${header.seq}</x:SequenceNumber>` : ''}`
    + `<x:SendingSystem>${header.system ?? 'AODB'}</x:SendingSystem><x:MessageType>${header.type ?? 'FLSH'}</x:MessageType></x:Header>`
    + aidx.replace(/^<\?xml[^>]*\?>/, '')
    + `</x:Airport_FlightLegNotifRQ>`;
}

/** LegData parts (AIDX element order: statuses, service type, delays, code shares, resources, times, aircraft). */
export const status = (code: string, repeat = 1, p = 'aidx') => `<${el(p, 'OperationalStatus')} RepeatIndex="${repeat}" CodeContext="9750">${code}</${el(p, 'OperationalStatus')}>`;
export const time = (q: string, t: string, v: string | null, p = 'aidx') =>
  v === null
    ? `<${el(p, 'OperationTime')} OperationQualifier="${q}" TimeType="${t}" CodeContext="9750" xsi:nil="true"/>`
    : `<${el(p, 'OperationTime')} OperationQualifier="${q}" TimeType="${t}" CodeContext="9750">${v}</${el(p, 'OperationTime')}>`;
export const resources = (usage: string, side: 'Departure' | 'Arrival', inner: string, p = 'aidx') =>
  `<${el(p, 'AirportResources')} Usage="${usage}"><${el(p, 'Resource')} DepartureOrArrival="${side}">${inner}</${el(p, 'Resource')}></${el(p, 'AirportResources')}>`;
export const stand = (code: string, p = 'aidx') => `<${el(p, 'AircraftParkingPosition')}>${code}</${el(p, 'AircraftParkingPosition')}>`;
export const gate = (code: string, p = 'aidx') => `<${el(p, 'PassengerGate')}>${code}</${el(p, 'PassengerGate')}>`;
export const belt = (code: string, p = 'aidx') => `<${el(p, 'BaggageClaimUnit')}>${code}</${el(p, 'BaggageClaimUnit')}>`;
export const terminal = (code: string, p = 'aidx') => `<${el(p, 'AircraftTerminal')}>${code}</${el(p, 'AircraftTerminal')}>`;
export const aircraft = (type: string, reg: string, p = 'aidx') =>
  `<${el(p, 'AircraftInfo')}><${el(p, 'AircraftType')}>${type}</${el(p, 'AircraftType')}><${el(p, 'Registration')}>${reg}</${el(p, 'Registration')}></${el(p, 'AircraftInfo')}>`;
export const delay = (code: string, minutes: number, p = 'aidx') =>
  `<${el(p, 'IrregularityDelay')} RepeatIndex="1"><${el(p, 'ReasonCode')}>${code}</${el(p, 'ReasonCode')}><${el(p, 'Duration')}>PT${minutes}M</${el(p, 'Duration')}></${el(p, 'IrregularityDelay')}>`;
export const plannedArrival = (apt: string, p = 'aidx') => `<${el(p, 'PlannedArrivalAptHistory')}><${el(p, 'Airport')}>${apt}</${el(p, 'Airport')}></${el(p, 'PlannedArrivalAptHistory')}>`;
/** A marketing flight of the leg (CodeShareInfo: the marketing airline and its flight number). */
export const codeShare = (airline: string, number: string, p = 'aidx') =>
  `<${el(p, 'CodeShareInfo')}><${el(p, 'Airline')}>${airline}</${el(p, 'Airline')}><${el(p, 'FlightNumber')}>${number}</${el(p, 'FlightNumber')}></${el(p, 'CodeShareInfo')}>`;
