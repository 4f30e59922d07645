/**
 * The outbox feeder ('outbox'): turns Applied decisions into msg_event rows (decisionOutbox.ts) in
 * the same transaction that advances its own checkpoint. It keeps its own fold of every flight,
 * so a KAFKA_SCHD row carries the flight as of that decision even when the flight read model lags
 * or is being rebuilt. A rebuild never runs this projector: msg_event rows are deliveries, and
 * re-feeding would re-send.
 *
 * The fold follows the batch transaction (JournaledMap); when its position is not the checkpoint
 * the batch starts from (first batch, a lost commit, an operator reset), it is folded again from
 * the log. Inserts are idempotent per (source_position, target, seq). Rows are made
 * `slicing.every` at a time with a turn of the event loop between, so the rows of a plan of 21,000
 * flights never hold the writer's loop for long (docs/projections.md "Big decisions").
 */
import type { FlightState } from '../domain/flight.ts';
import { applyDecision, applyDecisionSteps } from '../domain/evolve.ts';
import type { Clock } from '../platform/clock.ts';
import type { PoolClient, Queryable } from '../platform/db.ts';
import { LazyMap } from '../platform/lazyMap.ts';
import { DEFAULT_SLICING, DEFAULT_TIME_SLICING, runSliced, slicer, SLICED_FROM_CHANGES, type Slicing } from '../platform/slicing.ts';
import { appliedEvent, hasChanges, readDecisionsAfter, type DecisionEvent } from '../log/readDecisions.ts';
import { archivedDecisions, refuseArchivedAfter } from '../log/archivedHistory.ts';
import { foldFlightsUpTo, foldLog, type FoldBase } from '../log/foldLog.ts';
import { referencedFlids } from './flightFold.ts';
import { notifyOutbox, outboxInserter } from './insertOutbox.ts';
import { JournaledMap } from './journaledMap.ts';
import { NO_COUTMSGS_ROUTES, type CoutmsgsRoute } from './outboxRoutes.ts';
import { isSentKind, outboxRowsOf } from './decisionOutbox.ts';
import type { AidxRules, AidxSkipReason } from '../domain/aidxOut/aidxMessage.ts';
import type { Projector } from './projector.ts';
import { OUTBOX_PROJECTOR } from '../readModel/projectorNames.ts';

/**
 * A fold of the same log kept elsewhere in this process (the pump's write model), read at its
 * current position. States are replaced, never edited, so the feeder can hold the very same objects.
 */
export interface SharedFold {
  readonly position: string;
  readonly flights: ReadonlyMap<string, FlightState>;
  /** Resolves true when its flights can be read (a start from a snapshot fetches them beside the start), false when they cannot. */
  readable?(): Promise<boolean>;
}

export interface OutboxFeederOptions {
  clock: Clock;
  /** The airport zone (MSGX_AIRPORT_TZ): Kafka payload instants are shown in it, as the API shows them. */
  tz: string;
  /** COUTMSGS routes (none by default). */
  routes?: readonly CoutmsgsRoute[];
  /** The AIDX target (docs/delivery.md "AIDX"); absent: no AIDX rows. */
  aidx?: AidxRules;
  /** Told of each flight a decision changed that got no AIDX row, and why. */
  onAidxSkip?: (flid: string, reason: AidxSkipReason) => void;
  /**
   * The writer's other fold: the feeder starts from its states instead of folding the whole log
   * again, and holds its objects wherever a flight is at the same decision in both — one copy of
   * each flight in memory instead of two. Absent: the feeder folds and keeps its own.
   */
  shared?: SharedFold;
  /** Rows made per turn of the event loop (default DEFAULT_SLICING). */
  slicing?: Slicing;
  /**
   * The newest write-model snapshot at or before a position (src/write/snapshot): a refold starts
   * from it instead of position 0, which an archived month may have taken away (docs/operations.md
   * "Archive a month"). Absent, or none there: the refold starts at 0, and refuses over archived
   * months, naming the files to restore.
   */
  snapshot?: (q: Queryable, atMost: string) => Promise<FoldBase | undefined>;
}

export interface OutboxFeeder extends Projector {
  /** The feeder's flight states (as of its last committed batch). */
  flights(): ReadonlyMap<string, FlightState>;
}

/** The flids the changes of decisions in (`after`, `upTo`] name. */
async function changedAfter(client: PoolClient, after: string, upTo: string): Promise<Set<string>> {
  const changed = new Set<string>();
  const limit = BigInt(upTo);
  let position = after;
  while (BigInt(position) < limit) {
    const page = (await readDecisionsAfter(client, position, PAGE)).filter((e) => BigInt(e.position) <= limit);
    if (page.length === 0) break;
    for (const flid of referencedFlids(page)) changed.add(flid);
    position = page.at(-1)!.position;
  }
  return changed;
}

const PAGE = 5000;

export function createOutboxFeeder(opts: OutboxFeederOptions): OutboxFeeder {
  const rules = {
    tz: opts.tz,
    routes: opts.routes ?? NO_COUTMSGS_ROUTES,
    ...(opts.aidx ? { aidx: opts.aidx } : {}),
    ...(opts.onAidxSkip ? { onAidxSkip: opts.onAidxSkip } : {}),
  };
  const flights = new JournaledMap<string, FlightState>();
  /** The position `flights` reflects; undefined until folded. */
  let foldedTo: string | undefined;
  let applying: string | undefined;

  async function refold(client: PoolClient, to: string): Promise<void> {
    flights.clear();
    foldedTo = undefined;
    const shared = opts.shared && ((await opts.shared.readable?.()) ?? true) ? opts.shared : undefined;
    // Read synchronously: the shared fold's flights as of its position.
    const sharedAt = shared?.position;
    let snapshot: LazyMap<string, FlightState> | undefined;
    if (shared && sharedAt !== undefined && BigInt(sharedAt) >= BigInt(to)) {
      // Pointers only: days the shared fold has not decoded yet stay undecoded here too.
      snapshot = new LazyMap();
      snapshot.copyFrom(shared.flights);
    }
    if (snapshot) {
      // A flight no decision after `to` names is, as of `to`, what the shared fold holds (or
      // absent in both); only the others are folded from the log, up to `to`.
      const changed = await changedAfter(client, to, sharedAt!);
      flights.copyFrom(snapshot, changed);
      if (changed.size > 0) {
        // Their decisions via the flids index cost what those flights saw, unless a month is archived.
        const base = (await archivedDecisions(client)).upTo === '0' ? undefined : await baseAt(client, to);
        for (const [flid, state] of await foldFlightsUpTo(client, [...changed], to, base)) flights.set(flid, state);
      }
    } else {
      const base = await baseAt(client, to);
      if (base) flights.copyFrom(base.flights);
      const reached = await foldLog(client, flights, base?.position ?? '0', to);
      if (reached !== to) throw new Error(`outbox fold reached position ${reached}, expected ${to}`);
    }
    foldedTo = to;
  }

  /** Where a refold up to `to` starts: the newest snapshot at or before it, else position 0 if no month it needs is archived. */
  async function baseAt(client: PoolClient, to: string): Promise<FoldBase | undefined> {
    const base = to === '0' ? undefined : await opts.snapshot?.(client, to);
    await refuseArchivedAfter(client, base?.position ?? '0', `the outbox feeder's fold up to position ${to}`);
    return base;
  }

  /**
   * The flights decision `e` touched, taken from the shared fold instead of folding `e` again,
   * when the shared fold holds every flight `e` names as of `e` itself (their last decision is
   * `e`: the pump folded it, and nothing after it touched them). That is what folding and then
   * `share` would leave in `flights`, without the second fold of a plan's thousands of flights
   * (docs/benchmarks.md, figure 3). Undefined: `e` is folded here.
   */
  function adopted(e: DecisionEvent): Set<string> | undefined {
    const other = opts.shared?.flights;
    if (!other) return undefined;
    const names = referencedFlids([e]);
    if (names.length === 0) return undefined;
    const states: FlightState[] = [];
    for (const flid of names) {
      const theirs = other.get(flid);
      // Absent (archived or never created), or moved on since `e`: fold `e` here.
      if (theirs === undefined || theirs.lastPosition !== e.position) return undefined;
      states.push(theirs);
    }
    names.forEach((flid, i) => flights.set(flid, states[i]!));
    return new Set(names);
  }

  /** Hold the shared fold's state of each flight that is at the same decision there. */
  function share(touched: Iterable<string>): void {
    const other = opts.shared?.flights;
    if (!other) return;
    for (const flid of touched) {
      const mine = flights.get(flid);
      const theirs = mine && other.get(flid);
      if (theirs && theirs !== mine && theirs.lastPosition === mine.lastPosition) flights.set(flid, theirs);
    }
  }

  return {
    name: OUTBOX_PROJECTOR,
    flights: () => flights,
    async apply(client: PoolClient, events: readonly DecisionEvent[], from: string) {
      if (foldedTo !== from) await refold(client, from);
      flights.begin();
      // Rows go out in chunks as they are made (insertOutbox.ts): a decision's rows are all added
      // before the next decision changes `flights` (KAFKA_SCHD reads them as of its decision).
      const inserter = outboxInserter(client, opts.clock.now());
      const slice = slicer(opts.slicing ?? DEFAULT_SLICING);
      for (const e of events) {
        if (!hasChanges(e)) continue;
        // A plan's decision (21,000–70,000 changes) is folded in slices, with the feeder's turns between them.
        const touched = adopted(e) ?? (e.changes.length < SLICED_FROM_CHANGES
          ? applyDecision(flights, appliedEvent(e))
          : (await runSliced(applyDecisionSteps(flights, appliedEvent(e)), { ...DEFAULT_TIME_SLICING, turn: () => (opts.slicing ?? DEFAULT_SLICING).turn() })).value);
        share(touched);
        if (!isSentKind(e.kind)) continue;
        for (const row of outboxRowsOf(e, touched, flights, rules)) {
          await inserter.add(row);
          await slice.tick();
        }
      }
      const added = await inserter.finish();
      await notifyOutbox(client, added.keys());
      applying = events[events.length - 1]?.position ?? from;
    },
    committed() {
      flights.commit();
      foldedTo = applying;
    },
    rolledBack() {
      flights.rollback();
    },
  };
}
