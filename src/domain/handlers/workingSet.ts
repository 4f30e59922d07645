/**
 * The flights as a decision in progress sees them: the state it started from plus the changes it
 * has emitted so far (folded with the real `evolve`). Lets a message that names one flight twice
 * (two FLTR records, two FLOP blocks) decide the second against the result of the first.
 *
 * Folding is lazy: a flight's emitted changes are folded when the flight is next read, so a plan
 * snapshot that creates thousands of flights (and never reads them again) folds none of them here.
 */
import type { Change, FlightChange } from '../changes.ts';
import { evolve } from '../evolve.ts';
import type { FlightState } from '../flight.ts';

export class WorkingSet {
  private readonly overlay = new Map<string, FlightState | undefined>();
  /** Changes emitted for a flight since it was last read (not yet in `overlay`). */
  private readonly pending = new Map<string, FlightChange[]>();
  private readonly emitted: Change[] = [];

  constructor(private readonly base: ReadonlyMap<string, FlightState>) {}

  get(flid: string): FlightState | undefined {
    let state = this.overlay.has(flid) ? this.overlay.get(flid) : this.base.get(flid);
    const unfolded = this.pending.get(flid);
    if (unfolded !== undefined) {
      for (const change of unfolded) state = evolve(state, change);
      this.overlay.set(flid, state);
      this.pending.delete(flid);
    }
    return state;
  }

  emit(change: FlightChange): void {
    this.emitted.push(change);
    const unfolded = this.pending.get(change.flid);
    if (unfolded === undefined) this.pending.set(change.flid, [change]);
    else unfolded.push(change);
  }

  /** A change that touches no single flight (e.g. the snapshot summary). */
  note(change: Change): void {
    this.emitted.push(change);
  }

  get changes(): Change[] {
    return [...this.emitted];
  }

  /** Every flid known to the base state or touched here (in no particular order). */
  flids(): Set<string> {
    const all = new Set(this.base.keys());
    for (const flid of this.overlay.keys()) all.add(flid);
    for (const flid of this.pending.keys()) all.add(flid);
    return all;
  }
}
