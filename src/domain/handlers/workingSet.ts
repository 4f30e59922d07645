/**
 * The flights as a decision in progress sees them: the state it started from plus the changes it
 * has emitted so far (folded with the real `evolve`). Lets a message that names one flight twice
 * (two FLTR records, two FLOP blocks) decide the second against the result of the first.
 */
import type { Change, FlightChange } from '../changes.ts';
import { evolve } from '../evolve.ts';
import type { FlightState } from '../flight.ts';
import { compareFlids } from '../flid.ts';

export class WorkingSet {
  private readonly overlay = new Map<string, FlightState | undefined>();
  private readonly emitted: Change[] = [];

  constructor(private readonly base: ReadonlyMap<string, FlightState>) {}

  get(flid: string): FlightState | undefined {
    return this.overlay.has(flid) ? this.overlay.get(flid) : this.base.get(flid);
  }

  emit(change: FlightChange): void {
    this.emitted.push(change);
    this.overlay.set(change.flid, evolve(this.get(change.flid), change));
  }

  /** A change that touches no single flight (e.g. the snapshot summary). */
  note(change: Change): void {
    this.emitted.push(change);
  }

  get changes(): Change[] {
    return [...this.emitted];
  }

  /** Every flid known to the base state or created here, in numeric order (deterministic output). */
  flids(): string[] {
    const all = new Set([...this.base.keys(), ...this.overlay.keys()]);
    return [...all].sort(compareFlids);
  }
}

