/**
 * The leg-key index (docs/contract/aidx.md "Finding a leg"): airline + flight number + suffix +
 * direction + operation day → the flights that carry it, whoever created them (a SIS plan or FLOP
 * flight, an AIDX leg). An AIDX leg that is not one msgx created from AIDX finds the SIS flight of
 * the same leg through it, so both dialects decide one flight per leg.
 *
 * The index is a function of the flight states alone (`legIndexKey` of each state): every fold
 * of the log — the pump's write model, a snapshot plus the decisions after it, rebuild, redecide —
 * holds the same states and so answers the same. A map that keeps no index (a plain Map: tests,
 * one-off folds) is scanned instead (`flidsOfLeg`), with the same answer.
 */
import type { Direction, FlightState } from './flight.ts';

/**
 * A flight number as the index compares it: the airline designator in front taken off (the AODB
 * writes `CA1501`, AIDX `1501`), leading zeros dropped, upper case. null: no number.
 */
export function legNumber(flightNo: string | null, airline: string | null): string | null {
  let no = (flightNo ?? '').trim().toUpperCase();
  const al = (airline ?? '').trim().toUpperCase();
  if (al !== '' && no.startsWith(al) && no.length > al.length) no = no.slice(al.length);
  if (no === '') return null;
  const m = /^0*(\d{1,5})([A-Z]?)$/.exec(no);
  return m ? `${m[1]}${m[2]}` : no;
}

/** The index key: airline, number with its suffix, direction, operation day (YYYY-MM-DD). */
export function legIndexKey(airline: string, number: string, direction: Direction, day: string): string {
  return `${airline.trim().toUpperCase()}|${number}|${direction}|${day}`;
}

/** The key a flight is indexed under; null when it lacks an airline, a number or a direction. */
export function legKeyOf(f: FlightState): string | null {
  if (f.airline === null || (f.direction !== 'A' && f.direction !== 'D')) return null;
  const no = legNumber(f.flightNo, f.airline);
  return no === null ? null : legIndexKey(f.airline, no, f.direction, f.operationDay);
}

/** A flight map that answers leg-key lookups from an index of its own. */
export interface LegLookup {
  /** Flids that may carry `key` (a superset is allowed: the caller checks each state). */
  flidsOfLeg(key: string): Iterable<string>;
}

export type LegMap = ReadonlyMap<string, FlightState> & Partial<LegLookup>;

/**
 * The flights of `flights` whose state carries `key` now, by the map's index when it has one,
 * else by a scan; the answer is the same either way, in no particular order.
 */
export function flidsOfLeg(flights: LegMap, key: string): string[] {
  const out: string[] = [];
  if (flights.flidsOfLeg === undefined) {
    for (const [flid, f] of flights) if (legKeyOf(f) === key) out.push(flid);
    return out;
  }
  for (const flid of flights.flidsOfLeg(key)) {
    const f = flights.get(flid);
    if (f !== undefined && legKeyOf(f) === key && !out.includes(flid)) out.push(flid);
  }
  return out;
}

/** key → flids and flid → key, kept exact by `put` and `remove`. */
export class LegIndex {
  private readonly byKey = new Map<string, string[]>();
  private readonly keyOfFlid = new Map<string, string>();

  /** Index `flid` under `key` (null: under none), replacing what it was indexed under. */
  put(flid: string, key: string | null): void {
    const old = this.keyOfFlid.get(flid);
    if (old === key) return;
    if (old !== undefined) this.drop(flid, old);
    if (key === null) return;
    this.keyOfFlid.set(flid, key);
    const list = this.byKey.get(key);
    if (list === undefined) this.byKey.set(key, [flid]);
    else list.push(flid);
  }

  remove(flid: string): void {
    const old = this.keyOfFlid.get(flid);
    if (old !== undefined) this.drop(flid, old);
  }

  flids(key: string): readonly string[] {
    return this.byKey.get(key) ?? NONE;
  }

  clear(): void {
    this.byKey.clear();
    this.keyOfFlid.clear();
  }

  private drop(flid: string, key: string): void {
    this.keyOfFlid.delete(flid);
    const list = this.byKey.get(key);
    if (list === undefined) return;
    const at = list.indexOf(flid);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.byKey.delete(key);
  }
}

const NONE: readonly string[] = [];

/**
 * A plain flight map with its leg index (what `msgx redecide` decides against). Built empty and
 * filled by `set`: Map's own constructor would call `set` before the index exists.
 */
export class LegIndexedFlights extends Map<string, FlightState> implements LegLookup {
  readonly #legs = new LegIndex();

  static of(flights: Iterable<readonly [string, FlightState]>): LegIndexedFlights {
    const out = new LegIndexedFlights();
    for (const [flid, f] of flights) out.set(flid, f);
    return out;
  }

  override set(flid: string, f: FlightState): this {
    this.#legs.put(flid, legKeyOf(f));
    return super.set(flid, f);
  }

  override delete(flid: string): boolean {
    this.#legs.remove(flid);
    return super.delete(flid);
  }

  override clear(): void {
    this.#legs.clear();
    super.clear();
  }

  flidsOfLeg(key: string): Iterable<string> {
    return this.#legs.flids(key);
  }
}
