import { operationDayOf } from '../../domain/archive.ts';
import type { FlightState } from '../../domain/flight.ts';
import { flidsOfLeg, LegIndex, legKeyOf, type LegLookup, type LegMap } from '../../domain/legIndex.ts';

/**
 * A copy-on-write view of the write model for a group of decisions being prepared: reads fall
 * through to `base`, writes (by `applyDecision`) stay here. When the group commits, the same
 * decisions are folded into the real model; when it does not, this is simply dropped — so the
 * write model only ever holds committed decisions.
 */
export class FlightOverlay implements Map<string, FlightState>, LegLookup {
  private readonly local = new Map<string, FlightState>();
  private readonly removed = new Set<string>();
  /** The leg index of `local` (src/domain/legIndex.ts); the base answers for the rest. */
  private readonly legs = new LegIndex();

  constructor(private base: ReadonlyMap<string, FlightState>) {}

  /**
   * Read through `base` from now on: a map that holds what the old base held (the write model,
   * once it has taken over the overlay this one was made over).
   */
  rebase(base: ReadonlyMap<string, FlightState>): void {
    this.base = base;
  }

  get(flid: string): FlightState | undefined {
    // Every read of a decision goes through here (and through the overlay below, if any): removals are rare.
    if (this.removed.size > 0 && this.removed.has(flid)) return undefined;
    return this.local.get(flid) ?? this.base.get(flid);
  }

  /** The flight's operation day, from the base's index when it has one (FlightMap, src/domain/archive.ts). */
  operationDayOf(flid: string): string | undefined {
    if (this.removed.size > 0 && this.removed.has(flid)) return undefined;
    const mine = this.local.get(flid);
    if (mine) return mine.operationDay;
    return operationDayOf(this.base, flid);
  }

  /** Flids that may carry the leg key: this overlay's own states, then the base's (checked by the caller). */
  flidsOfLeg(key: string): Iterable<string> {
    const mine = this.legs.flids(key);
    const theirs = flidsOfLeg(this.base as LegMap, key);
    return mine.length === 0 ? theirs : [...mine, ...theirs];
  }

  has(flid: string): boolean {
    return this.get(flid) !== undefined;
  }

  set(flid: string, state: FlightState): this {
    this.removed.delete(flid);
    this.local.set(flid, state);
    this.legs.put(flid, legKeyOf(state));
    return this;
  }

  delete(flid: string): boolean {
    const had = this.has(flid);
    this.local.delete(flid);
    this.legs.remove(flid);
    this.removed.add(flid);
    return had;
  }

  clear(): void {
    for (const k of this.keys()) this.removed.add(k);
    this.local.clear();
    this.legs.clear();
  }

  get size(): number {
    let n = 0;
    for (const _ of this.keys()) n++;
    return n;
  }

  *keys(): MapIterator<string> {
    for (const k of this.base.keys()) if (!this.removed.has(k) && !this.local.has(k)) yield k;
    yield* this.local.keys();
  }

  *values(): MapIterator<FlightState> {
    for (const k of this.keys()) yield this.get(k)!;
  }

  *entries(): MapIterator<[string, FlightState]> {
    for (const k of this.keys()) yield [k, this.get(k)!];
  }

  [Symbol.iterator](): MapIterator<[string, FlightState]> {
    return this.entries();
  }

  forEach(fn: (value: FlightState, key: string, map: Map<string, FlightState>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }

  /**
   * Write what this overlay changed into `target` (the base it was made over, or a map that has
   * taken over the base's changes since): after the commit, the write model takes these states as
   * they are instead of folding the same decisions a second time.
   */
  mergeInto(target: Map<string, FlightState>): void {
    for (const flid of this.removed) target.delete(flid);
    for (const [flid, state] of this.local) target.set(flid, state);
  }

  readonly [Symbol.toStringTag] = 'FlightOverlay';
}
