import type { FlightState } from '../../domain/flight.ts';

/**
 * A copy-on-write view of the write model for a group of decisions being prepared: reads fall
 * through to `base`, writes (by `applyDecision`) stay here. When the group commits, the same
 * decisions are folded into the real model; when it does not, this is simply dropped — so the
 * write model only ever holds committed decisions.
 */
export class FlightOverlay implements Map<string, FlightState> {
  private readonly local = new Map<string, FlightState>();
  private readonly removed = new Set<string>();

  constructor(private readonly base: ReadonlyMap<string, FlightState>) {}

  get(flid: string): FlightState | undefined {
    if (this.removed.has(flid)) return undefined;
    return this.local.get(flid) ?? this.base.get(flid);
  }

  has(flid: string): boolean {
    return this.get(flid) !== undefined;
  }

  set(flid: string, state: FlightState): this {
    this.removed.delete(flid);
    this.local.set(flid, state);
    return this;
  }

  delete(flid: string): boolean {
    const had = this.has(flid);
    this.local.delete(flid);
    this.removed.add(flid);
    return had;
  }

  clear(): void {
    for (const k of this.keys()) this.removed.add(k);
    this.local.clear();
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

  readonly [Symbol.toStringTag] = 'FlightOverlay';
}
