/**
 * AIDX FlightLegNotifRQ (docs/contract/aidx.md): each leg is found by its leg key, or created with
 * a flid msgx assigns here — a decided fact, in the log with the FlightCreated that carries it — and
 * then changed exactly as the SIS handlers change a flight (fieldChanges, listChanges, decideFdel).
 *
 * Flid assignment (docs/contract/aidx.md "Flids"): the leg key is written to the flight's `ffid`
 * (`AIDX|airline|number|originDate|direction|suffix|dep|arr`), and the flid is the first free or
 * matching slot from 9·10¹⁸ + hash(key) (52 bits) upwards, probed in the write model: deterministic
 * from the log, so rebuild and redecide give the same flid, and far above AODB flids.
 *
 * A leg msgx did not create from AIDX may be a flight of the SIS dialect (a plan or FLOP flight
 * with the AODB's flid): it is found by its leg key (src/domain/legIndex.ts, docs/contract/aidx.md
 * "Finding a leg") and updated, so a day of SIS plans, FLOPs and AIDX updates keeps one flight per leg.
 */
import { otherAirport } from '../aidxOut/aidxMessage.ts';
import type { Change, FlightChange } from '../changes.ts';
import { fieldsOf } from '../fields.ts';
import type { FlightState } from '../flight.ts';
import { compareFlids } from '../flid.ts';
import { flidsOfLeg, legIndexKey, legKeyOf, legNumber, type LegMap } from '../legIndex.ts';
import { listsOf } from '../lists.ts';
import type { AidxLeg, AidxLegKey, AidxMessage, AidxStatus, FieldPatch } from '../message.ts';
import { fieldChanges, listChanges } from './diff.ts';
import { decideFdel } from './fdel.ts';
import { WorkingSet } from './workingSet.ts';

export const AIDX_VERSION = 2;

/** The lowest flid msgx assigns to an AIDX leg; AODB flids stay below it. */
export const AIDX_FLID_BASE = 9_000_000_000_000_000_000n;
/** Slots probed past the hash before giving up (a full run is a bug, not traffic). */
const MAX_PROBES = 10_000;
/** Notes kept per decision (a day's schedule has thousands of legs): the rest are counted. */
export const MAX_AIDX_NOTES = 200;

/** The leg key as the flight's ffid: the fields GraphQL's flightByLeg filters on come first. */
export function legFfid(k: AidxLegKey): string {
  return `AIDX|${k.airline}|${k.flightNumber}|${k.originDate}|${k.direction}|${k.suffix ?? ''}|${k.departureAirport}|${k.arrivalAirport}`;
}

/** The ffid prefix of every leg (airline, number, origin date, direction): what flightByLeg looks up. */
export function legFfidPrefix(airline: string, flightNumber: string, originDate: string, direction: string): string {
  return `AIDX|${airline}|${flightNumber}|${originDate}|${direction}|`;
}

/** 52 bits of the key (two FNV-1a 32-bit hashes). */
function hash52(s: string): bigint {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (BigInt(a >>> 0) << 20n) | BigInt((b >>> 0) & 0xfffff);
}

/** The leg's flid and state: the flight holding its key, or the first free slot (state undefined). */
export function findLeg(flights: { get(flid: string): FlightState | undefined }, ffid: string): { flid: string; state: FlightState | undefined } {
  const start = AIDX_FLID_BASE + hash52(ffid);
  for (let i = 0n; i < BigInt(MAX_PROBES); i++) {
    const flid = (start + i).toString();
    const state = flights.get(flid);
    if (state === undefined || state.ffid === ffid) return { flid, state };
  }
  throw new Error(`no free AIDX flid within ${MAX_PROBES} slots of ${start} for ${ffid}`);
}

// OperationalStatus codes (CodeContext 9750 / 2005) msgx recognises; any other is kept as the status.
const CANCELLED = new Set(['CX', 'CNL', 'CAN', 'CNX', 'XX', 'CANCELLED']);
const DIVERTED = new Set(['DV', 'DIV', 'DVT', 'DIVERTED']);
const AIR_RETURN = new Set(['RT', 'RTN', 'RTA', 'AR', 'RETURNED']);
const GROUND_RETURN = new Set(['GR', 'RTG']);

/** The status that counts: the highest RepeatIndex, the last of equal ones. */
function currentStatus(statuses: readonly AidxStatus[]): AidxStatus {
  let best = statuses[0]!;
  for (const s of statuses) if ((Number(s.repeatIndex ?? 0) || 0) >= (Number(best.repeatIndex ?? 0) || 0)) best = s;
  return best;
}

/** The fields a leg's statuses set: status, cancellation (or reinstatement), diversion, return. */
function statusFields(leg: AidxLeg, state: FlightState | undefined, sentAt: string, patch: FieldPatch): void {
  if (leg.statuses === null) return;
  const s = currentStatus(leg.statuses);
  const code = s.code.toUpperCase();
  patch.status = s.code;
  if (CANCELLED.has(code)) patch.cancelTime = state?.cancelTime ?? sentAt;
  else if ((state?.cancelTime ?? null) !== null) patch.cancelTime = null; // reinstated
  if (DIVERTED.has(code)) patch.diversionDirection = patch.diversionDirection ?? leg.key.direction;
  if (AIR_RETURN.has(code)) patch.returnType = 'A';
  else if (GROUND_RETURN.has(code)) patch.returnType = 'G';
}

const AIDX_FFID = 'AIDX|';

/** The day after `day` (YYYY-MM-DD). */
function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/**
 * The operation days a SIS flight of this leg may have, in the order tried: the local date of the
 * scheduled time sent, the origin date, and for an arrival sent without a scheduled time the day
 * after it (a night flight lands the next local day).
 */
function* legDays(leg: AidxLeg): Generator<string> {
  yield leg.operationDay;
  if (leg.key.originDate !== leg.operationDay) yield leg.key.originDate;
  if (leg.key.direction === 'A' && leg.fields.scheduledTime === undefined) {
    const next = nextDay(leg.key.originDate);
    if (next !== leg.operationDay) yield next;
  }
}

/**
 * The flight of another dialect that carries this leg: same airline, number and suffix, direction
 * and operation day (legDays), not a flight msgx created from AIDX (those are their ffid), and
 * no other airport at the far end when it names one. Several: a live one before a deleted one,
 * then the lowest flid. Reads the base's index; states as the decision sees them (`ws`).
 */
function findByLegKey(base: LegMap, ws: WorkingSet, leg: AidxLeg): { flid: string; state: FlightState } | undefined {
  const number = legNumber(`${leg.key.flightNumber}${leg.key.suffix ?? ''}`, null);
  if (number === null) return undefined;
  const ours = leg.key.direction === 'D' ? leg.key.departureAirport : leg.key.arrivalAirport;
  const far = otherEnd(leg);
  for (const day of legDays(leg)) {
    const key = legIndexKey(leg.key.airline, number, leg.key.direction, day);
    let best: { flid: string; state: FlightState } | undefined;
    for (const flid of flidsOfLeg(base, key)) {
      const state = ws.get(flid);
      // flidsOfLeg checked the base's state; one this decision changed is checked again.
      if (state === undefined || state.ffid?.startsWith(AIDX_FFID) || (state !== base.get(flid) && legKeyOf(state) !== key)) continue;
      const other = otherAirport(state, ours);
      if (other !== undefined && other !== far) continue;
      if (best === undefined || (best.state.deleted && !state.deleted)
        || (best.state.deleted === state.deleted && compareFlids(flid, best.flid) < 0)) best = { flid, state };
    }
    if (best !== undefined) return best;
  }
  return undefined;
}

/** The leg's other airport: the arrival of a departure, the departure of an arrival. */
function otherEnd(leg: AidxLeg): string {
  return leg.key.direction === 'D' ? leg.key.arrivalAirport : leg.key.departureAirport;
}

export interface AidxOutcome {
  changes: Change[];
  notes: string[];
  created: number;
  deleted: number;
  /** Legs not applied because their flight is deleted, or a Delete for a leg msgx does not hold. */
  deletedFlids: string[];
  unknownLegs: number;
}

function legLabel(leg: AidxLeg): string {
  const k = leg.key;
  return `leg ${leg.index} ${k.airline}${k.flightNumber}${k.suffix ?? ''} ${k.departureAirport}→${k.arrivalAirport} ${k.originDate} ${k.direction}`;
}

function legNote(leg: AidxLeg, flid: string, what: string): string {
  // Past the cap only counted (decideAidx): a day's schedule of thousands of legs builds no text for them.
  if (leg.index > MAX_AIDX_NOTES + 1) return '';
  const parts = [`${legLabel(leg)} → flid ${flid} ${what}`];
  if (leg.repeatNumber !== null && leg.repeatNumber > 1) parts.push(`repeat ${leg.repeatNumber}`);
  if (leg.statuses !== null) parts.push(`status ${leg.statuses.map((s) => `${s.code}@${s.repeatIndex ?? '-'}${s.codeContext ? `/${s.codeContext}` : ''}`).join(',')}`);
  const used = Object.keys(leg.fields).concat(Object.keys(leg.lists));
  if (used.length > 0) parts.push(`fields ${used.join(',')}`);
  if (leg.unmappedTimes.length > 0) parts.push(`times kept ${leg.unmappedTimes.map((t) => `${t.qualifier}/${t.timeType}${t.repeatIndex ? `#${t.repeatIndex}` : ''}=${t.value ?? 'nil'}`).join(',')}`);
  if (leg.codeShares.length > 0) parts.push(`code shares ${leg.codeShares.join(',')}`);
  if (leg.kept.length > 0) parts.push(`kept ${leg.kept.slice(0, 20).join(',')}${leg.kept.length > 20 ? ',…' : ''}`);
  return parts.join('; ');
}

export function decideAidx(flights: LegMap, msg: AidxMessage): AidxOutcome {
  const ws = new WorkingSet(flights);
  const out: AidxOutcome = { changes: [], notes: [], created: 0, deleted: 0, deletedFlids: [], unknownLegs: 0 };
  const notes: string[] = [];
  const head = [`AIDX ${msg.version} from ${msg.sender}${msg.sequence === null ? '' : ` seq ${msg.sequence}`}`];
  if (msg.header !== null) head.push(`header ${Object.entries(msg.header).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  notes.push(head.join('; '));
  for (const other of msg.otherAirportLegs) notes.push(`${other}: not our airport, left out`);
  for (const leg of msg.legs) {
    const ffid = legFfid(leg.key);
    const found = findLeg(ws, ffid);
    const byKey = found.state === undefined ? findByLegKey(flights, ws, leg) : undefined;
    const { flid, state } = byKey ?? found;
    const label = byKey === undefined ? '' : ' (by leg key)';
    if (leg.specialAction?.toLowerCase() === 'delete') {
      if (state === undefined) {
        out.unknownLegs++;
        notes.push(legNote(leg, flid, 'Delete of a leg msgx does not hold: nothing to delete'));
        continue;
      }
      const changes = decideFdel(state);
      out.deleted += changes.length;
      for (const c of changes) ws.emit(c);
      notes.push(legNote(leg, flid, `${changes.length > 0 ? 'deleted' : 'already deleted'}${label}`));
      continue;
    }
    if (state?.deleted) {
      out.deletedFlids.push(flid);
      notes.push(legNote(leg, flid, `flight deleted: not applied${label}`));
      continue;
    }
    const patch: FieldPatch = { ...leg.fields };
    statusFields(leg, state, msg.meta.sentAt, patch);
    if (state === undefined) {
      const created: FlightChange = {
        type: 'FlightCreated',
        flid,
        operationDay: leg.operationDay,
        fields: fieldsOf({ ...patch, ffid, airline: leg.key.airline, flightNo: `${leg.key.flightNumber}${leg.key.suffix ?? ''}`, direction: leg.key.direction }),
        // The other end of the leg as the adjacent station (ROUT), so the leg can be named again (AIDX out).
        lists: listsOf({ adjacent: [{ seq: 1, airport: otherEnd(leg), scheduledArrival: null, scheduledDeparture: null }], ...leg.lists }),
      };
      ws.emit(created);
      out.created++;
      notes.push(legNote(leg, flid, 'created'));
      continue;
    }
    const changes = fieldChanges(state, patch);
    // Lists only when the leg sent some (most updates carry times and statuses alone).
    if (Object.keys(leg.lists).length > 0) for (const c of listChanges(state, leg.lists)) changes.push(c);
    for (const c of changes) ws.emit(c);
    notes.push(legNote(leg, flid, `${changes.length > 0 ? 'updated' : 'unchanged'}${label}`));
  }
  out.changes = ws.changes;
  out.notes = notes.length > MAX_AIDX_NOTES ? [...notes.slice(0, MAX_AIDX_NOTES), `… ${notes.length - MAX_AIDX_NOTES} more legs`] : notes;
  return out;
}
