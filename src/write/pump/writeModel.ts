import { latestDayAfter } from '../../domain/archive.ts';
import { isFlightChange, type Change } from '../../domain/changes.ts';
import { applyDecision } from '../../domain/evolve.ts';
import type { Queryable } from '../../platform/db.ts';
import { readChangesAfter } from '../../log/readDecisions.ts';
import { EMPTY_REFERENCE, foldReference, type ReferenceState } from '../../domain/reference/state.ts';
import { foldPlanRequests, NO_PLAN_REQUESTS, type PlanRequests } from '../../domain/planRequests.ts';
import type { FlightOverlay } from './flightOverlay.ts';
import { ModelFlights } from './modelFlights.ts';
import { DayNotFetched } from '../snapshot/dayNotFetched.ts';
import type { ModelImage } from '../snapshot/snapshotCodec.ts';

const PAGE = 5000;

/**
 * The pump's write model: every flight folded from `decision_event` with the domain's
 * `applyDecision`, plus the position it reflects. Decisions are taken against this (never against
 * a read model). It only moves forward: `catchUp` folds whatever the log holds after `position`,
 * `apply` folds one decision that this process just committed. Both are idempotent by position, so
 * a decision seen through both paths is folded once.
 */
export interface WriteModelOptions {
  /**
   * The newest usable snapshot of the model (src/write/snapshot/warmModel.ts), handed in by the
   * composition root: `reload` starts from it instead of position 0. Absent: reload folds from 0.
   */
  readonly newestImage?: (q: Queryable) => Promise<ModelImage | undefined>;
}

export class WriteModel {
  readonly flights = new ModelFlights();
  /** The reference store (kind → code → elements), folded from the same log; replaced, never edited. */
  reference: ReferenceState = EMPTY_REFERENCE;
  /** Our plan requests (MGID → window), folded from the same log. */
  planRequests: PlanRequests = NO_PLAN_REQUESTS;
  private pos = 0n;
  private latest: string | null = null;
  /** Every day of the snapshot the model started from is here (docs/recovery.md "Start cost"). */
  private fetched: Promise<void> = Promise.resolve();
  /** Why a day of that snapshot cannot be read, once known: `ready` starts the model over. */
  private unreadable: Error | undefined;
  /** Why the fold started the model over (a day it needed could not be read), for the next `ready` to tell. */
  private startedOver: Error | undefined;
  /** The position at which a pump step last waited for a day (a second wait there waits for them all). */
  private waitedAt: bigint | undefined;
  private catchingUp: Promise<number> | undefined;
  private readonly watchers = new Set<() => void>();
  private stepEnded!: () => void;
  /** Resolves once the first pump step against this model has ended (docs/recovery.md "Start cost"). */
  readonly firstStep = new Promise<void>((resolve) => {
    this.stepEnded = resolve;
  });

  constructor(private readonly opts: WriteModelOptions = {}) {}

  get position(): string {
    return String(this.pos);
  }

  /**
   * The latest operation day the folded log has seen (the largest FlightCreated operationDay,
   * archived flights included): the traffic's own "today" for the history sweep. null: none yet.
   */
  get latestDay(): string | null {
    return this.latest;
  }

  /**
   * The model as of its position, for a snapshot (src/write/snapshot): a shallow copy of the
   * flight map — its states are replaced by applyDecision, never edited once in the map; days
   * still undecoded stay so, sharing their chunks — and the reference store and plan requests,
   * which are immutable. O(flights) pointer copies, no cloning, nothing decoded.
   */
  capture(): ModelImage {
    const flights = new ModelFlights();
    flights.copyFrom(this.flights);
    return { position: this.position, latestDay: this.latest, flights, reference: this.reference, planRequests: this.planRequests, fetched: this.fetched };
  }

  /**
   * Start from a snapshot instead of position 0 (docs/recovery.md "Write-model snapshots"): only
   * a model that has folded nothing yet takes one. Returns false (and changes nothing) otherwise.
   * The image's days may still be on their way (`image.fetched`): a read of a flight whose day is
   * not here throws DayNotFetched (`deciding` waits for that day), and the fold waits for the days
   * of the flights it folds.
   */
  restore(image: ModelImage): boolean {
    if (this.pos !== 0n || this.catchingUp !== undefined) return false;
    this.take(image);
    return true;
  }

  private take(image: ModelImage): void {
    const fetched = image.fetched ?? Promise.resolve();
    this.fetched = fetched;
    this.unreadable = undefined;
    fetched.catch((err: unknown) => {
      if (this.fetched === fetched) this.unreadable ??= err instanceof Error ? err : new Error(String(err));
    });
    this.flights.copyFrom(image.flights);
    this.reference = image.reference;
    this.planRequests = image.planRequests;
    this.latest = image.latestDay;
    this.pos = BigInt(image.position);
  }

  /**
   * Before a pump step (docs/recovery.md "Start cost"): at once, unless a day of the snapshot the
   * model started from was found unreadable (the row went away, cut short, a damaged day) — then
   * the model starts over (`reload`: a newer snapshot, or position 0) and the reason is returned,
   * for the caller's log line. It does not wait for the days still coming: `deciding` waits for
   * the ones a decision reads.
   */
  async ready(q: Queryable): Promise<Error | undefined> {
    const told = this.startedOver;
    this.startedOver = undefined;
    const err = this.unreadable;
    if (err === undefined) return told;
    await this.reload(q);
    return err;
  }

  /**
   * Run `step` (one pump scan) against the model. When it reads a flight of a snapshot day not
   * fetched yet (DayNotFetched: thrown before its group is committed, so nothing of that group is
   * kept), wait for that day — read ahead of the others — and return `again`: the step is made
   * again, from the model as it is. A second such wait at the same position waits for every day
   * (a decision that reads many days, a plan's, does not step through them one scan at a time).
   * A day that cannot be read makes the next `ready` start the model over.
   */
  async deciding<T, A = T>(step: () => Promise<T>, again: A): Promise<T | A> {
    try {
      const done = await step();
      this.stepEnded();
      return done;
    } catch (err) {
      if (!(err instanceof DayNotFetched)) {
        this.stepEnded();
        throw err;
      }
      const all = this.waitedAt === this.pos;
      this.waitedAt = this.pos;
      const fetched = this.fetched;
      try {
        await (all ? fetched : err.until);
      } catch (cause) {
        if (this.fetched === fetched) this.unreadable ??= cause instanceof Error ? cause : new Error(String(cause));
      }
      return again;
    }
  }

  /**
   * Decode the snapshot's days still undecoded, one day per turn of the event loop, until done or
   * `signal` aborts: a warm standby's idle work, so that its first decisions after a takeover do
   * not pay a day's decode (docs/recovery.md "Warm standby"). Returns the days decoded.
   */
  async decodeDays(signal: AbortSignal): Promise<number> {
    if (!(await this.readable())) return 0;
    let days = 0;
    while (!signal.aborted && this.flights.decodeOne()) {
      days += 1;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return days;
  }

  /** True when every flight can be read now or once the snapshot's days are in; false when they cannot (ready starts over). */
  readable(): Promise<boolean> {
    return this.fetched.then(
      () => true,
      () => false,
    );
  }

  /** Call `fn` after every move forward (a decision folded, a group adopted). Returns the unsubscribe. */
  watch(fn: () => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  /** Fold every decision after `position`. Concurrent callers share one pass. Returns how many were read. */
  catchUp(q: Queryable): Promise<number> {
    this.catchingUp ??= this.fold(q).finally(() => {
      this.catchingUp = undefined;
    });
    return this.catchingUp;
  }

  /**
   * Drop everything and fold the log again (after a failed commit left doubt, or on request): from
   * the newest snapshot of this fold code when there is one (it equals a fold from 0 up to its
   * position: docs/recovery.md "Write-model snapshots"), else from position 0.
   */
  async reload(q: Queryable): Promise<number> {
    await this.catchingUp?.catch(() => undefined);
    await this.startOver(q);
    return this.catchUp(q);
  }

  /** Empty, then the newest usable snapshot (its days read whole: newestImage) if there is one. */
  private async startOver(q: Queryable): Promise<void> {
    this.flights.clear();
    this.fetched = Promise.resolve();
    this.unreadable = undefined;
    this.reference = EMPTY_REFERENCE;
    this.planRequests = NO_PLAN_REQUESTS;
    this.pos = 0n;
    this.latest = null;
    const image = await this.opts.newestImage?.(q);
    if (image !== undefined) this.take(image);
  }

  /**
   * Fold one committed decision. Returns false (and changes nothing) when `position` is not the
   * next one: already folded (a catch-up got there first), or beyond a gap (call catchUp).
   */
  apply(position: string, msgId: string | null, recordedAt: Date, changes: readonly Change[]): boolean {
    const p = BigInt(position);
    if (p !== this.pos + 1n) return false;
    if (changes.length > 0) {
      applyDecision(this.flights, { position, msgId, recordedAt: recordedAt.toISOString(), changes });
      this.reference = foldReference(this.reference, changes);
      this.planRequests = foldPlanRequests(this.planRequests, changes);
    }
    this.latest = latestDayAfter(this.latest, changes);
    this.pos = p;
    for (const fn of this.watchers) fn();
    return true;
  }

  /**
   * Take over the outcome of decisions this process just committed at positions `basis`+1 … `last`,
   * as its pump folded them into `overlay` (with the same applyDecision, positions and recorded-at
   * stamp) while deciding: the flights, the reference store, the plan requests and the latest day
   * they lead to. Folding
   * the same decisions again would only produce equal states. Returns false (and changes nothing)
   * when the model is not at `basis` (a catch-up got there first, or a gap: call catchUp).
   */
  adopt(basis: string, last: string, overlay: FlightOverlay, folded: { reference: ReferenceState; planRequests: PlanRequests; latest: string | null }): boolean {
    if (BigInt(basis) !== this.pos) return false;
    overlay.mergeInto(this.flights);
    this.reference = folded.reference;
    this.planRequests = folded.planRequests;
    this.latest = folded.latest;
    this.pos = BigInt(last);
    for (const fn of this.watchers) fn();
    return true;
  }

  private async fold(q: Queryable): Promise<number> {
    let read = 0;
    for (;;) {
      const rows = await readChangesAfter(q, String(this.pos), PAGE);
      // The snapshot days of the flights these decisions name (applyDecision reads no other; an archived one is only deleted).
      try {
        await this.flights.fetchedFor(namedFlids(rows));
      } catch (err) {
        // One cannot be read: start over (a newer snapshot, or position 0) and fold on from there.
        this.startedOver = err instanceof Error ? err : new Error(String(err));
        await this.startOver(q);
        continue;
      }
      for (const r of rows) {
        if (!this.apply(r.position, r.msgId, r.recordedAt, r.changes)) {
          throw new Error(`decision_event has a hole before position ${r.position} (model at ${this.position})`);
        }
      }
      read += rows.length;
      if (rows.length < PAGE) return read;
    }
  }
}

/** The flights the changes of `rows` fold into (the flids of their flight changes). */
function* namedFlids(rows: readonly { readonly changes: readonly Change[] }[]): Iterable<string> {
  for (const r of rows) for (const c of r.changes) if (isFlightChange(c)) yield c.flid;
}
