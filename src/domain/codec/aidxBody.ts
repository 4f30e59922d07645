/**
 * IATA AIDX `IATA_AIDX_FlightLegNotifRQ` → `AidxMessage` (docs/contract/aidx.md). Elements are
 * matched by namespace URI and local name, never by prefix (xmlNamespaces.ts). What msgx has no
 * field for is kept (unmapped times, unknown elements, TPA_Extension) and never fails a message;
 * a FlightLeg without a usable LegIdentifier is a CODEC_ERROR (BodyError).
 *
 * Bounded: the tree's decode limits bound the work (one pass over the AIDX subtree).
 */
import type { Direction, FieldName, Allocation, Delay, Instant } from '../flight.ts';
import type { AidxLeg, AidxMessage, AidxStatus, AidxTime, FieldPatch, ListPatch, Meta } from '../message.ts';
import { localDateOf, wallClockAt, wallClockToEpochMs } from '../time.ts';
import { at, BodyError, fail, rootContext, type ReadContext } from './readers.ts';
import { attrOf, isNamed, isNil, localName, namespaceOf, ROOT_SCOPE, scopeOf, type NsScope } from './xmlNamespaces.ts';
import type { XmlElement } from './xmlTree.ts';

export const AIDX_NS = 'http://www.iata.org/IATA/2007/00';
export const AIDX_ROOT = 'IATA_AIDX_FlightLegNotifRQ';
/** Versions accepted (docs/contract/aidx.md): 15.1 to 21.3. */
export const AIDX_MIN_VERSION = '15.1';
export const AIDX_MAX_VERSION = '21.3';

/** Where the AIDX element sits: the root itself, or a child of a feed's wrapper root. */
export interface AidxFound {
  readonly el: XmlElement;
  /** The scope inside `el`. */
  readonly scope: NsScope;
  /** The wrapper root, null when the message is bare. */
  readonly wrapper: XmlElement | null;
}

export function findAidx(root: XmlElement): AidxFound | null {
  const rootScope = scopeOf(root, ROOT_SCOPE);
  if (isNamed(root, rootScope, AIDX_NS, AIDX_ROOT)) return { el: root, scope: rootScope, wrapper: null };
  for (const child of root.children) {
    if (localName(child.name) !== AIDX_ROOT) continue;
    const scope = scopeOf(child, rootScope);
    if (namespaceOf(child, scope) === AIDX_NS) return { el: child, scope, wrapper: root };
  }
  return null;
}

export type AidxDecode =
  | { ok: true; message: AidxMessage }
  | { ok: false; errorClass: 'UNSUPPORTED' | 'CODEC_ERROR'; error: string; meta: Meta };

export interface AidxOptions {
  tz: string;
  /** MSGX_AIRPORT_IATA; undefined: AIDX cannot be given a direction (PARKED). */
  airportIata: string | undefined;
}

/** A child in the AIDX namespace with its scope. */
interface Child { el: XmlElement; scope: NsScope; local: string }

function aidxChildren(el: XmlElement, scope: NsScope): Child[] {
  const out: Child[] = [];
  for (const c of el.children) {
    const s = scopeOf(c, scope);
    out.push({ el: c, scope: s, local: namespaceOf(c, s) === AIDX_NS ? localName(c.name) : `{${namespaceOf(c, s) ?? '?'}}${localName(c.name)}` });
  }
  return out;
}

const firstNamed = (cs: readonly Child[], local: string): Child | undefined => cs.find((c) => c.local === local);

function versionNumber(v: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})$/.exec(v.trim());
  return m ? Number(m[1]) * 1000 + Number(m[2]) : null;
}

/** The wrapper's header leaves (any namespace): `SequenceNumber`, `SendingSystem`, `MessageType`, … */
function readHeader(wrapper: XmlElement): Record<string, string> | null {
  const header = wrapper.children.find((c) => localName(c.name) === 'Header');
  if (header === undefined) return null;
  const out: Record<string, string> = {};
  let n = 0;
  for (const c of header.children) {
    if (c.children.length > 0 || n >= 32) continue;
    out[localName(c.name)] = c.text.slice(0, 200);
    n++;
  }
  return out;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const UTC_SECONDS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/**
 * The common shape `YYYY-MM-DDTHH:MM:SSZ` (what AIDX feeds send) as an instant without building a
 * Date: undefined when the text has another shape or a field out of range (the full parser decides).
 */
function utcSeconds(text: string): Instant | undefined {
  const m = UTC_SECONDS.exec(text);
  if (m === null) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1]!)) return undefined;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return undefined;
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z`;
}

/** xs:dateTime → instant: with a zone as given, without one in the airport's zone. null: not a time. */
export function parseAidxTime(text: string, tz: string): Instant | null {
  const fast = utcSeconds(text);
  if (fast !== undefined) return fast;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, zone] = m;
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31 || Number(h) > 24 || Number(mi) > 59) return null;
  let ms: number;
  if (zone === undefined) {
    ms = wallClockToEpochMs({ year: Number(y), month: Number(mo), day: Number(d), hour: Number(h), minute: Number(mi), second: Number(s ?? 0) }, tz);
  } else {
    ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}${zone}`);
  }
  if (!Number.isFinite(ms)) return null;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString();
}

/** The compact local DTTM (yyyyMMddHHmmss) of an instant: what META shows for the message. */
function compactLocal(instant: Instant, tz: string): string {
  const w = wallClockAt(Date.parse(instant), tz);
  return `${pad(w.year, 4)}${pad(w.month)}${pad(w.day)}${pad(w.hour)}${pad(w.minute)}${pad(w.second)}`;
}

/**
 * (direction, OperationQualifier, TimeType) → the fields it sets (docs/contract/aidx.md §Times).
 * A pair that is not here is kept in the decision as an unmapped time.
 */
const TIME_FIELDS: Readonly<Record<string, readonly FieldName[]>> = {
  'D OFB SCT': ['scheduledTime'],
  'D OFB EST': ['estimatedTime', 'eobt'],
  'D OFB ACT': ['actualTime'],
  'D OFB TAR': ['tobt'],
  'D OFB CAL': ['cobt'],
  'D TKO CAL': ['ctot'],
  'D SRT ACT': ['egst'],
  'D ONB EST': ['nextEstimatedArrival'],
  'D ONB ACT': ['nextActualArrival'],
  'A ONB SCT': ['scheduledTime'],
  'A ONB EST': ['estimatedTime'],
  'A ONB ACT': ['actualTime'],
  'A OFB EST': ['prevEstimatedDeparture'],
  'A OFB ACT': ['prevActualDeparture'],
};

export function timeFields(direction: Direction, qualifier: string, timeType: string): readonly FieldName[] | undefined {
  const key = `${direction} ${qualifier} ${timeType}`;
  return Object.hasOwn(TIME_FIELDS, key) ? TIME_FIELDS[key] : undefined;
}

const text = (c: Child | undefined): string => (c === undefined ? '' : c.el.text.trim());
const AIRPORT = /^[A-Z0-9]{3,4}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

interface KeyParts { airline: string; flightNumber: string; suffix: string | null; dep: string; arr: string; originDate: string; repeat: number | null }

function readLegIdentifier(leg: Child, ctx: ReadContext): KeyParts {
  const id = firstNamed(aidxChildren(leg.el, leg.scope), 'LegIdentifier');
  if (id === undefined) fail(ctx, 'LegIdentifier', 'missing');
  const cs = aidxChildren(id.el, id.scope);
  const lctx = at(ctx, 'LegIdentifier');
  const airline = text(firstNamed(cs, 'Airline')).toUpperCase();
  const flightNumber = text(firstNamed(cs, 'FlightNumber')).toUpperCase();
  const suffix = text(firstNamed(cs, 'OperationalSuffix')).toUpperCase();
  const dep = text(firstNamed(cs, 'DepartureAirport')).toUpperCase();
  const arr = text(firstNamed(cs, 'ArrivalAirport')).toUpperCase();
  const origin = DATE.exec(text(firstNamed(cs, 'OriginDate')));
  const repeat = text(firstNamed(cs, 'RepeatNumber'));
  if (!/^[A-Z0-9]{2,3}$/.test(airline)) fail(lctx, 'Airline', airline === '' ? 'missing' : `invalid airline '${airline}'`);
  if (!/^[A-Z0-9]{1,5}$/.test(flightNumber)) fail(lctx, 'FlightNumber', flightNumber === '' ? 'missing' : `invalid flight number '${flightNumber}'`);
  if (!AIRPORT.test(dep)) fail(lctx, 'DepartureAirport', dep === '' ? 'missing' : `invalid airport '${dep}'`);
  if (!AIRPORT.test(arr)) fail(lctx, 'ArrivalAirport', arr === '' ? 'missing' : `invalid airport '${arr}'`);
  if (origin === null) fail(lctx, 'OriginDate', 'missing or not a date (YYYY-MM-DD)');
  if (repeat !== '' && !/^\d{1,4}$/.test(repeat)) fail(lctx, 'RepeatNumber', `invalid number '${repeat}'`);
  return {
    airline, flightNumber, suffix: suffix === '' ? null : suffix, dep, arr,
    originDate: `${origin[1]}-${origin[2]}-${origin[3]}`, repeat: repeat === '' ? null : Number(repeat),
  };
}

const USAGE_RANK: Readonly<Record<string, number>> = { Planned: 1, Estimated: 2, Actual: 3 };

function allocation(seq: number, code: string): Allocation {
  return { seq, code, class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null };
}

/**
 * AirportResources: the list of the highest usage given (Actual over Estimated over Planned),
 * resources of our direction (or of none). Each kind present replaces the flight's list of that kind.
 */
function readResources(groups: readonly Child[], direction: Direction, fields: FieldPatch, lists: ListPatch): void {
  let best: Child | undefined;
  let bestRank = -1;
  for (const g of groups) {
    const rank = USAGE_RANK[attrOf(g.el, 'Usage') ?? ''] ?? 0;
    if (rank >= bestRank) [best, bestRank] = [g, rank];
  }
  if (best === undefined) return;
  const stands: string[] = [];
  const gates: string[] = [];
  const belts: string[] = [];
  const chutes: string[] = [];
  const counters: string[] = [];
  const seen = new Set<string>();
  for (const res of aidxChildren(best.el, best.scope)) {
    if (res.local !== 'Resource') continue;
    const dOrA = (attrOf(res.el, 'DepartureOrArrival') ?? '').trim().charAt(0).toUpperCase();
    if (dOrA !== '' && dOrA !== direction) continue;
    for (const c of aidxChildren(res.el, res.scope)) {
      seen.add(c.local);
      const v = c.el.text.trim();
      switch (c.local) {
        case 'AircraftParkingPosition': if (v !== '') stands.push(v); break;
        case 'PassengerGate': if (v !== '') gates.push(v); break;
        case 'BaggageClaimUnit': if (v !== '') belts.push(v); break;
        case 'BaggageMakeupBelt': if (v !== '') chutes.push(v); break;
        case 'CheckInInfo': {
          const cs = aidxChildren(c.el, c.scope);
          const first = text(firstNamed(cs, 'FirstPosition'));
          const last = text(firstNamed(cs, 'LastPosition'));
          if (first !== '') counters.push(last === '' || last === first ? first : `${first}-${last}`);
          break;
        }
        case 'AircraftTerminal': fields.terminal = v === '' ? null : v; break;
        case 'PublicTerminal': if (!seen.has('AircraftTerminal')) fields.terminal = v === '' ? null : v; break;
        case 'Runway': fields.runway = v === '' ? null : v; break;
        default: break;
      }
    }
  }
  if (seen.has('AircraftParkingPosition')) {
    lists.stands = stands.map((c, i) => allocation(i + 1, c));
    fields.currentStand = stands[0] ?? null;
  }
  if (seen.has('PassengerGate')) lists.gates = gates.map((c, i) => allocation(i + 1, c));
  if (seen.has('BaggageClaimUnit')) lists.belts = belts.map((c, i) => allocation(i + 1, c));
  if (seen.has('BaggageMakeupBelt')) lists.chutes = chutes.map((c, i) => allocation(i + 1, c));
  if (seen.has('CheckInInfo')) lists.counters = counters.map((c, i) => allocation(i + 1, c));
}

/** xs:duration (PT1H15M), HHMM or plain minutes → minutes; null when none of these. */
function durationMinutes(v: string): number | null {
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:\d+(?:\.\d+)?S)?)?$/.exec(v);
  if (iso && v !== 'P' && v !== 'PT') return Number(iso[1] ?? 0) * 1440 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0);
  const hhmm = /^(\d{2}):?(\d{2})$/.exec(v);
  if (hhmm) return Number(hhmm[1]) * 60 + Number(hhmm[2]);
  return /^\d{1,5}$/.test(v) ? Number(v) : null;
}

/** IrregularityDelay: a code (DelayCode, or the first *Code / *Reason child) and a duration. */
function readDelay(d: Child): Delay | null {
  const cs = aidxChildren(d.el, d.scope);
  const codeEl = firstNamed(cs, 'DelayCode') ?? cs.find((c) => /Code$|Reason$/.test(c.local));
  const code = codeEl === undefined ? (attrOf(d.el, 'Code') ?? '').trim() : codeEl.el.text.trim();
  if (code === '') return null;
  const durEl = firstNamed(cs, 'Duration') ?? cs.find((c) => /Duration$/.test(c.local));
  const dur = durEl === undefined ? (attrOf(d.el, 'Duration') ?? '') : durEl.el.text.trim();
  return { code, start: null, durationMinutes: dur === '' ? null : durationMinutes(dur) };
}

interface LegDataOut {
  fields: FieldPatch; lists: ListPatch; statuses: AidxStatus[] | null; unmapped: AidxTime[]; codeShares: string[]; kept: string[];
  plannedArrivals: string[];
}

function readLegData(data: Child, direction: Direction, ctx: ReadContext): LegDataOut {
  const out: LegDataOut = { fields: {}, lists: {}, statuses: null, unmapped: [], codeShares: [], kept: [], plannedArrivals: [] };
  const resources: Child[] = [];
  const delays: Delay[] = [];
  let sawDelay = false;
  const timesSet = new Map<string, number>(); // field → highest repeat index applied
  for (const c of aidxChildren(data.el, data.scope)) {
    switch (c.local) {
      case 'OperationalStatus': {
        const code = c.el.text.trim();
        if (code !== '') (out.statuses ??= []).push({ code, repeatIndex: attrOf(c.el, 'RepeatIndex') ?? null, codeContext: attrOf(c.el, 'CodeContext') ?? null });
        break;
      }
      case 'ServiceType': out.fields.serviceType = c.el.text.trim() === '' ? null : c.el.text.trim(); break;
      case 'CodeShareInfo': {
        const cs = aidxChildren(c.el, c.scope);
        const code = `${text(firstNamed(cs, 'Airline'))}${text(firstNamed(cs, 'FlightNumber'))}${text(firstNamed(cs, 'OperationalSuffix'))}`;
        if (code !== '') out.codeShares.push(code);
        break;
      }
      case 'PlannedArrivalAptHistory': {
        const cs = aidxChildren(c.el, c.scope);
        const apt = (cs.length > 0 ? text(firstNamed(cs, 'Airport') ?? cs[0]) : c.el.text.trim()).toUpperCase();
        if (AIRPORT.test(apt)) out.plannedArrivals.push(apt);
        break;
      }
      case 'AirportResources': resources.push(c); break;
      case 'OperationTime': {
        const qualifier = (attrOf(c.el, 'OperationQualifier') ?? '').trim().toUpperCase();
        const timeType = (attrOf(c.el, 'TimeType') ?? '').trim().toUpperCase();
        const repeatIndex = attrOf(c.el, 'RepeatIndex') ?? null;
        let value: Instant | null;
        if (isNil(c.el, c.scope)) value = null;
        else {
          const t = c.el.text.trim();
          if (t === '') { out.kept.push(`OperationTime ${qualifier}/${timeType} (empty)`); break; }
          const parsed = parseAidxTime(t, ctx.tz);
          if (parsed === null) fail(ctx, `OperationTime[${qualifier}/${timeType}]`, `invalid time '${t}'`);
          value = parsed;
        }
        const targets = timeFields(direction, qualifier, timeType);
        if (targets === undefined) {
          out.unmapped.push({ qualifier, timeType, repeatIndex, value });
          break;
        }
        const rank = Number(repeatIndex ?? 0) || 0;
        for (const f of targets) {
          // Repeats (returns): the highest RepeatIndex wins; equal ones, the last.
          if ((timesSet.get(f) ?? -1) > rank) continue;
          timesSet.set(f, rank);
          (out.fields as Record<string, unknown>)[f] = value;
        }
        break;
      }
      case 'AircraftInfo':
        for (const a of aidxChildren(c.el, c.scope)) {
          const v = isNil(a.el, a.scope) ? '' : a.el.text.trim();
          if (a.local === 'AircraftType') out.fields.aircraftType = v === '' ? null : v;
          else if (a.local === 'Registration') out.fields.registration = v === '' ? null : v;
          else out.kept.push(`AircraftInfo/${a.local}`);
        }
        break;
      case 'IrregularityDelay': {
        sawDelay = true;
        const d = readDelay(c);
        if (d !== null) delays.push(d);
        break;
      }
      default:
        out.kept.push(c.local);
    }
  }
  readResources(resources, direction, out.fields, out.lists);
  if (sawDelay) out.lists.delays = delays;
  return out;
}

function directionOf(p: KeyParts, ours: string, plannedArrivals: readonly string[]): { direction: Direction; arrival: string; divertedTo: string | null } | null {
  if (p.dep === ours) return { direction: 'D', arrival: p.arr, divertedTo: null };
  if (p.arr === ours) return { direction: 'A', arrival: p.arr, divertedTo: null };
  // An arrival of ours diverted elsewhere: the planned arrival history names us; the key keeps our airport.
  if (plannedArrivals.includes(ours)) return { direction: 'A', arrival: ours, divertedTo: p.arr };
  return null;
}

function readLeg(leg: Child, index: number, opts: AidxOptions & { airportIata: string }, otherAirport: string[]): AidxLeg | null {
  const ctx = at(rootContext(opts.tz), 'FlightLeg', index);
  const parts = readLegIdentifier(leg, ctx);
  const children = aidxChildren(leg.el, leg.scope);
  const data = firstNamed(children, 'LegData');
  // Direction first (times map by it); the planned arrival history may be needed for it.
  let planned: string[] = [];
  if (data !== undefined) {
    for (const c of aidxChildren(data.el, data.scope)) {
      if (c.local !== 'PlannedArrivalAptHistory') continue;
      const cs = aidxChildren(c.el, c.scope);
      const apt = (cs.length > 0 ? text(firstNamed(cs, 'Airport') ?? cs[0]) : c.el.text.trim()).toUpperCase();
      if (AIRPORT.test(apt)) planned = [...planned, apt];
    }
  }
  const dir = directionOf(parts, opts.airportIata, planned);
  if (dir === null) {
    otherAirport.push(`leg ${index} ${parts.airline}${parts.flightNumber} ${parts.dep}→${parts.arr}`);
    return null;
  }
  const out = data === undefined
    ? { fields: {}, lists: {}, statuses: null, unmapped: [], codeShares: [], kept: [] as string[], plannedArrivals: [] }
    : readLegData(data, dir.direction, ctx);
  if (dir.divertedTo !== null) {
    out.fields.diversionAirport = dir.divertedTo;
    out.fields.diversionDirection = 'A';
  }
  const special = text(firstNamed(children, 'SpecialAction'));
  for (const c of children) {
    if (c.local !== 'LegIdentifier' && c.local !== 'LegData' && c.local !== 'SpecialAction') out.kept.push(c.local);
  }
  const scheduled = out.fields.scheduledTime;
  return {
    index,
    key: {
      airline: parts.airline, flightNumber: parts.flightNumber, suffix: parts.suffix, departureAirport: parts.dep,
      arrivalAirport: dir.arrival, originDate: parts.originDate, direction: dir.direction,
    },
    repeatNumber: parts.repeat,
    operationDay: typeof scheduled === 'string' ? localDateOf(scheduled, opts.tz) : parts.originDate,
    specialAction: special === '' ? null : special,
    fields: out.fields,
    lists: out.lists,
    statuses: out.statuses,
    unmappedTimes: out.unmapped,
    codeShares: out.codeShares,
    kept: out.kept,
  };
}

/** Who sent it: Originator, else DeliveringSystem (Code, else CompanyShortName), else the wrapper's SendingSystem. */
function senderOf(children: readonly Child[], header: Record<string, string> | null): string {
  for (const name of ['Originator', 'DeliveringSystem']) {
    const c = firstNamed(children, name);
    const v = c === undefined ? '' : (attrOf(c.el, 'Code') ?? attrOf(c.el, 'CompanyShortName') ?? '').trim();
    if (v !== '') return v.slice(0, 100);
  }
  const h = header?.SendingSystem?.trim() ?? '';
  return h === '' ? 'AIDX' : h.slice(0, 100);
}

/** Decode the AIDX element `found` (never throws for an input fault: classified instead). */
export function decodeAidx(found: AidxFound, opts: AidxOptions): AidxDecode {
  const { el, scope, wrapper } = found;
  const header = wrapper === null ? null : readHeader(wrapper);
  const children = aidxChildren(el, scope);
  const sender = senderOf(children, header);
  const seqAttr = (attrOf(el, 'SequenceNmbr') ?? '').trim();
  const seqHeader = (header?.SequenceNumber ?? '').trim();
  const sequence = seqAttr !== '' ? seqAttr : seqHeader !== '' ? seqHeader : null;
  const version = (attrOf(el, 'Version') ?? '').trim();
  const legEls = children.filter((c) => c.local === 'FlightLeg');
  const stamp = parseAidxTime(attrOf(el, 'TimeStamp') ?? '', opts.tz);
  const firstOrigin = legEls.length > 0 ? DATE.exec(text(firstNamed(aidxChildren(firstNamed(aidxChildren(legEls[0]!.el, legEls[0]!.scope), 'LegIdentifier')?.el ?? el, scope), 'OriginDate'))) : null;
  // Without a TimeStamp the message's "sent at" is the first leg's origin day (decisions stay clock-free).
  const sentAt = stamp ?? (firstOrigin ? new Date(`${firstOrigin[1]}-${firstOrigin[2]}-${firstOrigin[3]}T00:00:00Z`).toISOString() : '1970-01-01T00:00:00.000Z');
  const meta: Meta = {
    sndr: sender.slice(0, 8),
    seqn: sequence !== null && /^\d{1,18}$/.test(sequence) ? BigInt(sequence).toString() : '0',
    dttm: compactLocal(sentAt, opts.tz),
    sentAt,
    localDate: localDateOf(sentAt, opts.tz),
    type: 'AIDX',
    styp: 'FLEG',
    rawType: 'AIDX',
    rawStyp: 'FLEG',
    rcvr: null,
    mgid: null,
    rmid: null,
  };
  const v = versionNumber(version);
  if (v === null || v < versionNumber(AIDX_MIN_VERSION)! || v > versionNumber(AIDX_MAX_VERSION)!) {
    return { ok: false, errorClass: 'UNSUPPORTED', error: `AIDX version '${version}' is not supported (msgx reads ${AIDX_MIN_VERSION} to ${AIDX_MAX_VERSION})`, meta };
  }
  if (opts.airportIata === undefined) {
    return { ok: false, errorClass: 'UNSUPPORTED', error: 'AIDX needs our airport: set MSGX_AIRPORT_IATA (three-letter IATA code) to decide AIDX legs', meta };
  }
  if (legEls.length === 0) return { ok: false, errorClass: 'CODEC_ERROR', error: `${AIDX_ROOT}: no FlightLeg`, meta };
  const otherAirport: string[] = [];
  const legs: AidxLeg[] = [];
  const legOpts = { ...opts, airportIata: opts.airportIata };
  try {
    for (let i = 0; i < legEls.length; i++) {
      const leg = readLeg(legEls[i]!, i + 1, legOpts, otherAirport);
      if (leg !== null) legs.push(leg);
    }
  } catch (err) {
    if (err instanceof BodyError) return { ok: false, errorClass: 'CODEC_ERROR', error: err.message, meta };
    throw err;
  }
  if (legs.length === 0) {
    return { ok: false, errorClass: 'UNSUPPORTED', error: `not our airport: ${otherAirport.slice(0, 5).join('; ')}${otherAirport.length > 5 ? ` (+${otherAirport.length - 5} more)` : ''} — none touches ${opts.airportIata} (MSGX_AIRPORT_IATA)`, meta };
  }
  return {
    ok: true,
    message: { type: 'AIDX', styp: 'FLEG', meta, version, sender, sequence, header, legs, otherAirportLegs: otherAirport },
  };
}
