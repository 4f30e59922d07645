/**
 * The write model's flight map: a LazyMap (src/platform/lazyMap.ts) whose older days may still be
 * undecoded chunks of the snapshot it started from (docs/recovery.md "Start cost"), and which
 * tells a flight's operation day without decoding it (the history sweep asks it of every flight)
 * and finds flights by leg key (src/domain/legIndex.ts) for AIDX legs.
 *
 * The leg index is made at the first lookup (a start or a restore costs nothing more) and then
 * kept by `set` and `delete`. A snapshot day that is still undecoded is indexed when a lookup
 * first names that day: only the days AIDX traffic asks about are decoded.
 */
import type { FlightMap } from '../../domain/archive.ts';
import type { FlightState } from '../../domain/flight.ts';
import { LegIndex, legKeyOf, type LegLookup } from '../../domain/legIndex.ts';
import { LazyMap, type LazyChunk } from '../../platform/lazyMap.ts';
import { SnapshotChunk } from '../snapshot/snapshotCodec.ts';

const mapGet = Map.prototype.get;
const mapEntries = Map.prototype.entries;

export class ModelFlights extends LazyMap<string, FlightState> implements FlightMap, LegLookup {
  /** The index of the states this map holds decoded; undefined until the first lookup. */
  #legs: LegIndex | undefined;
  /** Snapshot chunks still to index, per operation day (the day's lookup indexes them). */
  #chunkDays = new Map<string, Set<SnapshotChunk>>();

  /**
   * Resolves when the snapshot days of `flids` are here (at once when they are), reading them
   * ahead of the other days still coming (docs/recovery.md "Start cost"); rejects when one cannot
   * be read.
   */
  fetchedFor(flids: Iterable<string>): Promise<void> {
    if (this.pendingCount === 0) return Promise.resolve();
    const days = new Set<SnapshotChunk>();
    for (const flid of flids) {
      const chunk = this.chunkOf(flid);
      if (chunk instanceof SnapshotChunk && !chunk.here) days.add(chunk);
    }
    return days.size === 0 ? Promise.resolve() : Promise.all([...days].map((c) => c.fetched)).then(() => undefined);
  }

  operationDayOf(flid: string): string | undefined {
    const chunk = this.chunkOf(flid);
    return chunk instanceof SnapshotChunk ? chunk.day : this.get(flid)?.operationDay;
  }

  override set(flid: string, state: FlightState): this {
    this.#legs?.put(flid, legKeyOf(state));
    return super.set(flid, state);
  }

  override delete(flid: string): boolean {
    this.#legs?.remove(flid);
    return super.delete(flid);
  }

  override clear(): void {
    this.#legs = undefined;
    this.#chunkDays = new Map();
    super.clear();
  }

  override copyFrom(other: ReadonlyMap<string, FlightState>, except?: ReadonlySet<string>): void {
    // Chunks arrive: the index is made again at the next lookup (never at a restore or a capture).
    this.#legs = undefined;
    super.copyFrom(other, except);
  }

  override addChunk(chunk: LazyChunk<string, FlightState>): void {
    this.#legs = undefined;
    super.addChunk(chunk);
  }

  flidsOfLeg(key: string): Iterable<string> {
    const legs = this.#legs ?? this.#build();
    const day = key.slice(key.lastIndexOf('|') + 1);
    const chunks = this.#chunkDays.get(day);
    if (chunks !== undefined) {
      // Indexed before the day leaves the list: a chunk not fetched yet throws DayNotFetched, and the day is indexed at the next lookup.
      for (const chunk of chunks) this.#indexChunk(legs, chunk);
      this.#chunkDays.delete(day);
    }
    return legs.flids(key);
  }

  /** Index the decoded states; group the still-undecoded ones by their chunk's day. */
  #build(): LegIndex {
    const legs = new LegIndex();
    this.#legs = legs;
    this.#chunkDays = new Map();
    for (const [flid, state] of mapEntries.call(this) as MapIterator<[string, FlightState]>) legs.put(flid, legKeyOf(state));
    if (this.pendingCount === 0) return legs;
    const other: string[] = [];
    for (const flid of this.keys()) {
      const chunk = this.chunkOf(flid);
      if (chunk === undefined) continue;
      if (!(chunk instanceof SnapshotChunk)) {
        other.push(flid);
        continue;
      }
      const set = this.#chunkDays.get(chunk.day);
      if (set === undefined) this.#chunkDays.set(chunk.day, new Set([chunk]));
      else set.add(chunk);
    }
    // A chunk without a day: decoded now (get), then indexed like any state.
    for (const flid of other) {
      const state = this.get(flid);
      if (state !== undefined) legs.put(flid, legKeyOf(state));
    }
    return legs;
  }

  /** A chunk's states that are still this map's (undecoded, or decoded and not replaced since). */
  #indexChunk(legs: LegIndex, chunk: SnapshotChunk): void {
    for (const [flid, state] of chunk.load()) {
      if (this.chunkOf(flid) === chunk || mapGet.call(this, flid) === state) legs.put(flid, legKeyOf(state));
    }
  }
}
