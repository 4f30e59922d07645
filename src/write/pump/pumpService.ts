import { performance } from 'node:perf_hooks';
import type { Appended } from '../../log/appendedEvents.ts';
import { outageRetryDelay } from '../../platform/config.ts';
import { isConnectionError } from '../../platform/db.ts';
import type { Runtime } from '../../platform/runtime.ts';
import type { ReadinessCheck, Service } from '../../platform/service.ts';
import { createServiceLoop } from '../../platform/serviceLoop.ts';
import { FencedError, type WriterFence } from '../../platform/writerFence.ts';
import type { Decider } from '../../domain/decide.ts';
import { latestDayAfter, sweepOnAdvance, sweepOnAdvanceAfter } from '../../domain/archive.ts';
import { applyDecision, applyDecisionSteps, type AppliedEvent } from '../../domain/evolve.ts';
import type { FlightsArchived } from '../../domain/changes.ts';
import type { FlightState } from '../../domain/flight.ts';
import { foldReference, type ReferenceState } from '../../domain/reference/state.ts';
import { foldPlanRequests, type PlanRequests } from '../../domain/planRequests.ts';
import { commitDecisions, commitStaged, decisionOf, stageCommit, type CommitResult, type Prepared, type StagedCommit, type SweepDecision } from './commitDecisions.ts';
import { identityToCheck, judgeSteps, readDecoded, type JudgeContext, type ReadHead } from './evaluate.ts';
import { runSteps, type Steps } from '../../domain/steps.ts';
import { DEFAULT_TIME_SLICING, runSliced, type Foreground, type TimeSlicing } from '../../platform/slicing.ts';
import { storedPayloadText, type NewDecision } from '../../log/appendDecisions.ts';
import { createHeadDecoder, INLINE_DECODE_CHARS, type HeadDecoder } from './headDecoder.ts';
import { threadCpuClock } from '../../platform/threadCpu.ts';
import { findHeads, HEAD_BYTES, identityOwners, stillFront, type Head } from './findHeads.ts';
import { FlightOverlay } from './flightOverlay.ts';
import { failureVerdict, flidsSteps, type Outcome } from './outcome.ts';
import { createListener } from '../../platform/listen.ts';
import { Wakeup } from '../../platform/wakeup.ts';
import { Channels } from '../../platform/channels.ts';
import type { WriteModel } from './writeModel.ts';
import { BlockedHeadWarning, warnOperatorWork } from './pumpWarnings.ts';
import { createStallWatch } from '../../platform/stallWatch.ts';

/** How many heads one scan fetches (decided in id order). */
const PREFETCH = 500;
/**
 * Most decisions committed in one transaction. Each decision still commits together with its
 * proc_state advance; grouping only saves round trips and fsyncs (see docs/operations.md).
 */
const GROUP = 50;

/**
 * A head of this many characters or more is foreground work (src/platform/slicing.ts) from its
 * decode until the group after it has committed: the projectors and the dispatcher wait for it.
 * A smaller big head takes tens of milliseconds; holding them back for it would only add lag.
 */
const FOREGROUND_FROM_CHARS = 1024 * 1024;

export interface Pump extends Service {
  readonly model: WriteModel;
  /**
   * Resolves once the pump, after this call, has looked for work and found none ready: nothing
   * unfinished below the safe horizon, or the head waits for its backoff. For tests and tools.
   */
  drained(): Promise<void>;
  /** Wake the pump now (new work, a replay, a closed gap). */
  wake(): void;
  /** /readyz check `pump`: not ready while the FIFO head has not moved for MSGX_HEAD_STALL_READY_MS. */
  readonly readiness: ReadinessCheck;
}

export interface PumpOptions {
  readonly model: WriteModel;
  /** Called after a message reached a terminal state (the backfill picks it up). */
  readonly onTerminal?: (msgId: string) => void;
  /** The handlers (default: the registry's); a test injects another set here, never a switch in src. */
  readonly decide?: Decider;
  /** Register CMINMSGS write-backs (default true; false in shadow mode — see commitDecisions). */
  readonly writeBack?: boolean;
  /** The writer lock: decisions commit only while it is provably held (docs/security.md). Absent: unfenced. */
  readonly fence?: WriterFence;
  /** Where heads are decoded (default: inline when small, else the decode worker with MSGX_DECODE_BUDGET_MS). */
  readonly decoder?: HeadDecoder;
  /** Milliseconds of a monotonic clock, for the decode + decide budget (default performance.now; a test injects one). */
  readonly elapsedMs?: () => number;
  /**
   * How a big head (INLINE_DECODE_CHARS or more) is judged, folded and written out: a slice at a
   * time, a turn of the event loop between slices (default BIG_HEAD_SLICING; a test injects one
   * that counts or holds its turns).
   */
  readonly slicing?: Pick<TimeSlicing, 'sliceMs' | 'turn'>;
  /** Marks the work on a head of FOREGROUND_FROM_CHARS or more, from its decode until the group after it has committed, as what the projectors and the dispatcher give way to (src/platform/slicing.ts). */
  readonly foreground?: Foreground;
  /** Told what each group appended, once committed (the writer's projectors take the events from it: sharedReads.ts). */
  readonly onCommitted?: (appended: Appended) => void;
}

/**
 * A big head's judge, fold and payload text run in slices of this much wall time (docs/projections.md
 * "Big decisions"): /healthz, the lock's keepalive and the commit before it run between slices.
 */
export const BIG_HEAD_SLICING: Pick<TimeSlicing, 'sliceMs' | 'turn'> = DEFAULT_TIME_SLICING;

/** 'again': stop this scan and look at the FIFO afresh (a conflict, or the head is still unfinished). */
type Step = 'decided' | 'again';

/** What a group is decided against: a log position and the flights, reference, plan requests and latest day as of it. */
interface GroupBasis {
  readonly position: string;
  readonly flights: ReadonlyMap<string, FlightState>;
  readonly reference: ReferenceState;
  readonly planRequests: PlanRequests;
  readonly latest: string | null;
  /** Identities bound by decided groups that may not be committed yet: identity → msg id. */
  readonly bound: Map<string, string>;
}

/** A group decided after `basis`, its states in `overlay`; `after` is the basis of the next group. */
interface DecidedGroup {
  readonly group: Prepared[];
  /** The index in the scan's heads after its last one: where the next group starts. */
  readonly end: number;
  readonly basis: string;
  readonly waitMs: number;
  readonly overlay: FlightOverlay;
  readonly after: GroupBasis;
  /** Its commit's parameters, built while the group before it committed. */
  readonly staged: StagedCommit;
  /**
   * Settles when `overlay` holds the group's decisions. A big head's fold runs beside its commit
   * (docs/projections.md "Big decisions"); every other group's has run when it is decided.
   */
  readonly folded: Promise<void>;
  /** Ends the foreground work of its big head (src/platform/slicing.ts): once the group after it has committed, or the scan ends. */
  readonly foreground?: () => void;
}

const FOLDED: Promise<void> = Promise.resolve();

/** Milliseconds a FAILED head still waits for its backoff at `now` (0: it is ready). */
const backoffLeftMs = (head: Head, now: Date): number =>
  head.state === 'FAILED' && head.nextAttemptAt && head.nextAttemptAt > now ? head.nextAttemptAt.getTime() - now.getTime() : 0;

/**
 * While a group is prepared, it lets pending I/O run every this many heads: the group before it is
 * committing meanwhile, and each of its round trips needs the event loop for a moment (an answer
 * read, the next statement sent). Deciding 50 heads at one go would hold the commit back by
 * milliseconds each time, and PostgreSQL would wait for node instead of working beside it.
 */
const YIELD_EVERY = 8;

/** Resolves after pending I/O callbacks ran: the commit just started has sent its first statement. */
const afterTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * How many groups are decided ahead of the committing one. With one, node waited for each commit
 * before it started on the group after next, and PostgreSQL for node whenever deciding a group
 * took longer than committing one; with two, each side has work queued for the other.
 */
const AHEAD = 2;

/** A failure keeps its head at the front of the FIFO (head-of-line blocking): nothing behind it is decided in this scan. */
const endsScan = (g: DecidedGroup): boolean => g.group.at(-1)?.outcome.kind === 'Failed';

/**
 * The single writer's main loop (docs/contract/design.md §5, invariants 1–4): strict FIFO over the smallest
 * unfinished id below the lowest open gap; a FAILED head waiting for its backoff blocks everything
 * behind it. Sleeps on a Wakeup notified by NOTIFY msgx_inbox, the backoff deadline, or a fallback
 * timer of MSGX_POLL_INTERVAL_MS — never a busy loop.
 */
export function createPump(rt: Runtime, opts: PumpOptions): Pump {
  const { cfg, clock, pool, log: rootLog } = rt;
  const log = rootLog.child({ role: 'pump' });
  const model = opts.model;
  const writeBack = opts.writeBack ?? true;
  const wakeup = new Wakeup();
  const stop = new AbortController();
  const listener = createListener({
    name: 'pump',
    source: { url: rt.databaseUrl },
    channels: [Channels.inbox, Channels.rebuilt],
    onNotify: (channel) => {
      // A projection rebuild (possibly with fixed evolve code) asks writers to fold the log afresh.
      if (channel === Channels.rebuilt) reloadRequested = true;
      wakeup.notify();
    },
    onListening: () => wakeup.notify(),
    meanwhile: 'the pump looks for work every MSGX_POLL_INTERVAL_MS until it is back',
    clock,
    log,
  });
  let scans = 0;
  let reloadRequested = false;
  /**
   * The batch of heads after the last one, read while the last group of a scan committed, and the
   * log position it is for: the next scan takes it if stillFront says it is (else reads afresh).
   */
  let prefetched: { readonly position: string; readonly heads: Promise<Head[]> } | undefined;
  /** Heads still to be decided one per transaction, after a group commit failed. */
  let singles = 0;
  let drainWaiters: { after: number; resolve: () => void }[] = [];
  const blockedHead = new BlockedHeadWarning(log, cfg.headBlockedWarnMs, cfg.airportTz);
  const decoder = opts.decoder ?? createHeadDecoder({ cfg, log });
  const elapsedMs = opts.elapsedMs ?? (() => performance.now());
  /** The writer thread's CPU clock: the decide of a big head counts CPU time, as its decode does (docs/architecture.md "Decode budget"). */
  const decideCpu = opts.elapsedMs ? undefined : threadCpuClock();
  const slicing = opts.slicing ?? BIG_HEAD_SLICING;
  /** A commit was fenced: this process is stopping (the fence said so); nothing more is decided. */
  let isFenced = false;
  /** The FIFO head of the latest scan and since when it has been the head (the `pump` readiness check). */
  const stall = createStallWatch({ name: 'pump', what: 'FIFO head message', clock, thresholdMs: cfg.headStallReadyMs });

  /** Commit a decided group; on a database error retry once, then fall back to one head at a time. */
  async function commitGroup(decided: DecidedGroup): Promise<Step> {
    const { group, basis } = decided;
    const now = decided.staged.now;
    let lastErr: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await settle(group, await commitStaged(pool, decided.staged, { fence: opts.fence, faults: rt.faults }), decided);
      } catch (err) {
        if (err instanceof FencedError) return fenced(err); // not ours to decide any more: no retry, no INFRA record
        lastErr = err;
      }
    }
    // The database is unreachable: nothing about these messages; the run loop says so once and backs off.
    if (isConnectionError(lastErr)) throw lastErr;
    if (group.length > 1) {
      // One bad message must not hold the others back: isolate it.
      log.warn({ err: lastErr, heads: group.length }, 'group commit failed; deciding these heads one at a time');
      singles = group.length;
      return 'again';
    }
    // INFRA: this head's decision could not be committed twice in a row; record that, if we can.
    const head = group[0]!.head;
    const error = lastErr instanceof Error ? lastErr.message : String(lastErr);
    log.warn({ err: lastErr, msgId: head.msgId }, 'decision transaction failed; recording INFRA failure');
    const infra: Outcome = { ...failureVerdict(cfg, now, head, 'INFRA', error), identity: null, meta: null };
    const items = [{ head, outcome: infra }];
    try {
      await settle(items, await commitDecisions(pool, items, basis, now, { writeBack, fence: opts.fence, faults: rt.faults }));
    } catch (err) {
      if (err instanceof FencedError) return fenced(err);
      throw err;
    }
    return 'again';
  }

  /**
   * Another writer holds the lock (or this one cannot prove it does): never a retry loop. The fence
   * logs it, counts it (msgx_writer_fenced_total) and stops the process (exit code 1, the standby
   * takes over: docs/operations.md "Writer fenced"); this pump decides nothing more meanwhile.
   */
  function fenced(err: FencedError): Step {
    if (!isFenced) {
      isFenced = true;
      opts.fence?.fenced(err, 'pump');
    }
    prefetched = undefined;
    return 'again';
  }

  /**
   * After COMMIT: the write model takes over the states the group was decided into (only now), and
   * terminal messages go to the backfill. Without them (the INFRA record), or when the model is not
   * where the group was decided, the model folds the committed decisions from the log instead.
   */
  async function settle(group: readonly Prepared[], res: CommitResult, decided?: DecidedGroup): Promise<Step> {
    await decided?.folded;
    if (!res.ok) {
      log.debug({ conflict: res.conflict }, 'decision conflict; catching up and deciding again');
      await model.catchUp(pool);
      return 'again';
    }
    rt.faults.reached('pump.committed');
    if (decided) opts.onCommitted?.(decided.staged.append);
    const last = res.sweepPositions.at(-1)?.at(-1) ?? res.positions.at(-1)!; // the last item's sweeps follow it
    const adopted = decided !== undefined && decided.after.position === last
      && model.adopt(decided.basis, last, decided.overlay, decided.after);
    group.forEach(({ head, outcome }, k) => {
      if (outcome.kind !== 'Failed') opts.onTerminal?.(head.msgId);
      if (outcome.kind === 'Parked') {
        // Once per message: it holds nothing back, and replay --class brings it back after a fix.
        log.warn({ msgId: head.msgId, errorClass: outcome.errorClass, error: outcome.error, position: res.positions[k] }, 'message parked');
      }
      // e.g. an empty reference snapshot; the texts name kinds and counts, never record values.
      const warnings = outcome.kind === 'Applied' || outcome.kind === 'Skipped' ? outcome.reference?.warnings : undefined;
      for (const warning of warnings ?? []) log.warn({ msgId: head.msgId, position: res.positions[k] }, warning);
    });
    const swept = group.flatMap((p) => p.sweeps ?? []);
    if (swept.length > 0) {
      const s = swept[0]!;
      log.info({ flightsArchived: swept.reduce((n, x) => n + x.change.flids.length, 0), beforeDay: s.change.beforeDay, latestDay: s.latestDay }, 'history sweep decided');
    }
    if (!adopted) await model.catchUp(pool);
    warnOperatorWork(log, group, res.positions);
    singles = Math.max(0, singles - group.length);
    log.debug({ decided: group.length, position: res.positions.at(-1) }, 'decided');
    // A FAILED head stays the head: rescan, and wait for its backoff (head-of-line blocking).
    return group.at(-1)!.outcome.kind === 'Failed' ? 'again' : 'decided';
  }

  /**
   * Run a computation in steps: a big head's a slice at a time (`slicing`, its cost counted in the
   * writer thread's CPU time where known: docs/architecture.md "Decode budget"), a small one's at
   * one go. spentMs: what it cost in that clock.
   */
  function run<T>(steps: Steps<T>, big: boolean): Promise<{ value: T; spentMs: number }> | { value: T; spentMs: number } {
    const clock = big && decideCpu ? decideCpu : elapsedMs;
    if (big) return runSliced(steps, { ...slicing, clock });
    const t0 = clock();
    const value = runSteps(steps);
    return { value, spentMs: clock() - t0 };
  }

  /**
   * The decode + decide budget (docs/architecture.md "Decode budget"). A decide runs on this thread
   * and cannot be preempted: it is measured, and a message whose decode and decide together took
   * longer than MSGX_DECODE_BUDGET_MS is PARKED (CODEC_ERROR) instead of applied, so that it does
   * not cost that time again on every scan or restart. Its decision is dropped (nothing of it is
   * folded), and `msgx replay --class CODEC_ERROR` decides it again after the budget was raised.
   */
  function withinBudget(head: Head, outcome: Outcome, spentMs: number, now: Date): Outcome {
    if (spentMs <= cfg.decodeBudgetMs || (outcome.kind !== 'Applied' && outcome.kind !== 'Skipped')) return outcome;
    const error = `decode + decide took ${Math.round(spentMs)} ms, longer than the budget of ${cfg.decodeBudgetMs} ms (MSGX_DECODE_BUDGET_MS); not applied — raise the budget and msgx replay --class CODEC_ERROR if it is legitimate`;
    log.warn({ msgId: head.msgId, spentMs: Math.round(spentMs), budgetMs: cfg.decodeBudgetMs }, 'decide over budget: message parked');
    return { ...failureVerdict(cfg, now, head, 'CODEC_ERROR', error), identity: outcome.identity, meta: outcome.meta };
  }

  /** The committed write model as the basis of the first group of a scan. */
  function modelBasis(): GroupBasis {
    return {
      position: model.position, flights: model.flights, reference: model.reference, planRequests: model.planRequests, latest: model.latestDay, bound: new Map(),
    };
  }

  /**
   * prepareGroup, and the foreground (src/platform/slicing.ts) of a head of FOREGROUND_FROM_CHARS or
   * more from its decode on: such a head is decided alone, so it can only be the group's first.
   * The group carries the foreground's end (the scan ends it once the group after it has committed);
   * a group that fails to be decided ends it at once.
   */
  async function prepareGroup(heads: readonly Head[], from: number, on: GroupBasis): Promise<DecidedGroup> {
    const first = heads[from];
    const heavy = first !== undefined && first.rawXml.length >= FOREGROUND_FROM_CHARS && backoffLeftMs(first, clock.now()) === 0;
    const foreground = heavy ? opts.foreground?.enter() : undefined;
    if (foreground === undefined) return decideGroup(heads, from, on);
    try {
      return { ...(await decideGroup(heads, from, on)), foreground };
    } catch (err) {
      foreground();
      throw err;
    }
  }

  /**
   * Decide up to GROUP consecutive ready heads (a big one — INLINE_DECODE_CHARS or more — alone) against an overlay of
   * `on` (each one sees the changes of those before it), stopping after a failure. The heads are
   * decoded first, so the owners of all their identities come in one statement. `on` is the write
   * model, or the group before this one while that one is still being committed.
   */
  async function decideGroup(heads: readonly Head[], from: number, on: GroupBasis): Promise<DecidedGroup> {
    const basis = on.position;
    const now = clock.now();
    const limit = singles > 0 ? 1 : GROUP;
    const batch: { head: Head; read: ReadHead; decodeMs: number }[] = [];
    let waitMs = 0;
    for (let i = from; i < heads.length && batch.length < limit; i++) {
      const head = heads[i]!;
      const backoffMs = backoffLeftMs(head, now);
      if (backoffMs > 0) {
        // Head-of-line blocking: nothing behind a waiting head moves.
        waitMs = Math.max(1, backoffMs);
        break;
      }
      // A big head is decided in a group of its own: a backlog of plans is not one giant
      // transaction, and its commit starts while it is folded (below). A group of small ones holds
      // at most GROUP × INLINE_DECODE_CHARS (3.2 MiB) of XML.
      const big = head.rawXml.length >= INLINE_DECODE_CHARS;
      if (big && batch.length > 0) break;
      const { decoded, ms } = await decoder.decode(head.rawXml, head.nulReplaced);
      batch.push({ head, read: readDecoded(head, decoded, cfg, now), decodeMs: ms });
      if (big) break;
      if (batch.length % YIELD_EVERY === 0) await afterTurn();
    }
    const lookups = batch.map(({ head, read }) => identityToCheck(head, read));
    const owners = await identityOwners(pool, lookups.filter((id): id is string => id !== null));

    const overlay = new FlightOverlay(on.flights);
    let reference = on.reference;
    let planRequests = on.planRequests;
    // Identities bound by this group and the ones decided before it in this scan (which may not be
    // committed, so not visible to identityOwners, yet).
    const bound = new Map(on.bound);
    const group: Prepared[] = [];
    let latest = on.latest;
    let appended = 0n; // decisions of this group so far: positions basis+1 …
    let folded = FOLDED;
    for (const [k, { head, read, decodeMs }] of batch.entries()) {
      const identity = lookups[k] ?? null;
      const owner = identity === null ? null : (bound.get(identity) ?? owners.get(identity)?.find((id) => id !== head.msgId) ?? null);
      const big = head.rawXml.length >= INLINE_DECODE_CHARS;
      const ctx: JudgeContext = { cfg, now, flights: overlay, reference, planRequests, owner, ...(opts.decide ? { decide: opts.decide } : {}) };
      const judged = await run(judgeSteps(head, read, ctx), big);
      const outcome = withinBudget(head, judged.value, decodeMs + judged.spentMs, now);
      appended += 1n;
      if (outcome.identity !== null) bound.set(outcome.identity, head.msgId);
      let sweeps: SweepDecision[] = [];
      let decision: NewDecision | undefined;
      if (outcome.kind === 'Applied') {
        const position = String(BigInt(basis) + appended);
        const event: AppliedEvent = { position, msgId: head.msgId, recordedAt: now.toISOString(), changes: outcome.changes };
        const next = latestDayAfter(latest, outcome.changes);
        const sweepOf = (change: FlightsArchived): SweepDecision => ({ change, keepDays: cfg.historyKeepDays, latestDay: next! });
        const foldSweeps = (owed: readonly SweepDecision[], first: bigint) => owed.forEach((sw, k) => {
          applyDecision(overlay, { position: String(BigInt(basis) + first + BigInt(k)), msgId: null, recordedAt: now.toISOString(), changes: [sw.change] });
        });
        if (big) {
          // A big head (alone in its group) is made — flids, payload text, the sweeps it owes, read
          // off its changes — before it is folded, and folded while it commits: the commit of a
          // plan's megabytes and the fold of its flights overlap (docs/projections.md "Big decisions").
          const made = decisionOf(head.msgId, outcome, (await run(flidsSteps(outcome.changes), big)).value);
          decision = { ...made, storedText: (await run(storedPayloadText(made), big)).value };
          sweeps = sweepOnAdvanceAfter(overlay, outcome.changes, latest, next, cfg.historyKeepDays).map(sweepOf);
          const first = appended + 1n;
          // From the next turn on: the commit's statement is sent first (its first slice of ~50 ms
          // would otherwise run here, before the group is returned and committed).
          folded = afterTurn().then(() => run(applyDecisionSteps(overlay, event), big)).then(() => foldSweeps(sweeps, first));
          folded.catch(() => undefined); // awaited by settle and by the next group; dropped with a failed commit
        } else {
          applyDecision(overlay, event);
          // History sweep in FIFO order: when this decision moved the latest operation day (traffic
          // time, never the wall clock), the flights that fell out of the keep window leave right behind it.
          sweeps = sweepOnAdvance(overlay, latest, next, cfg.historyKeepDays).map(sweepOf);
          foldSweeps(sweeps, appended + 1n);
        }
        appended += BigInt(sweeps.length);
        reference = foldReference(reference, outcome.changes);
        planRequests = foldPlanRequests(planRequests, outcome.changes);
        latest = next;
      }
      const prepared: Prepared = sweeps.length > 0 ? { head, outcome, sweeps } : { head, outcome };
      group.push(decision === undefined ? prepared : { ...prepared, decision });
      if (outcome.kind === 'Failed') break;
      if (group.length % YIELD_EVERY === 0) await afterTurn();
    }
    const after = { position: String(BigInt(basis) + appended), flights: overlay, reference, planRequests, latest, bound };
    return { group, end: from + group.length, basis, waitMs, overlay, after, staged: stageCommit(group, basis, now, writeBack), folded };
  }

  /** The heads of a scan: the prefetched batch when it is still the front of the FIFO, else read now. */
  async function nextHeads(): Promise<Head[]> {
    const p = prefetched;
    prefetched = undefined;
    if (p !== undefined && p.position === model.position) {
      const heads = await p.heads.catch(() => []);
      if (await stillFront(pool, heads, p.position)) return heads;
    }
    return findHeads(pool, PREFETCH);
  }

  /**
   * One scan: decide ready heads in order. Returns how long to sleep, or 0 to scan again at once.
   * Groups are decided ahead of the one committing, up to AHEAD of them, each against the states of
   * the group before it (CPU here, the commit's I/O in PostgreSQL); a group commits only after the
   * one before it did, and only if the log is where it was decided (commitDecisions' basis check).
   * When a commit does not go through, the groups decided after it are dropped.
   */
  async function scan(): Promise<number> {
    if (isFenced) return cfg.pollIntervalMs;
    const heads = await nextHeads();
    const head = heads[0];
    if (head === undefined) stall.idle();
    else stall.waiting(head.msgId);
    if (head === undefined) return cfg.pollIntervalMs;
    blockedHead.check(head, clock.now());
    let live = true;
    /** The group after `prior` (once that one is decided), or undefined where the batch ends for this scan. */
    const decideAfter = (prior: Promise<DecidedGroup | undefined>): Promise<DecidedGroup | undefined> => {
      const next = prior.then(async (g) => {
        if (g === undefined || !live || g.group.length === 0 || endsScan(g) || g.end >= heads.length) return undefined;
        await g.folded;
        await afterTurn();
        return live ? prepareGroup(heads, g.end, g.after) : undefined;
      });
      next.catch(() => undefined); // awaited in turn, or dropped with the scan
      return next;
    };
    let decided = await prepareGroup(heads, 0, modelBasis());
    const ahead: Promise<DecidedGroup | undefined>[] = [];
    /** The foreground of the big head committed last: it ends once the group after it has committed. */
    let committedBig: (() => void) | undefined;
    try {
      for (;;) {
        if (decided.group.length === 0) return decided.waitMs;
        const committing = commitGroup(decided);
        // Keep AHEAD groups decided (or being decided) behind the committing one.
        while (ahead.length < AHEAD) ahead.push(decideAfter(ahead.at(-1) ?? Promise.resolve(decided)));
        if (decided.end >= heads.length && !endsScan(decided)) {
          // The batch's last group is committing: read the next batch beside it (PostgreSQL would
          // otherwise wait for node, and node for the heads, at the start of every scan).
          const last = heads.at(-1)!.msgId;
          const read = afterTurn().then(() => findHeads(pool, PREFETCH, HEAD_BYTES, last));
          read.catch(() => undefined);
          prefetched = { position: decided.after.position, heads: read };
        }
        if ((await committing) === 'again' || stop.signal.aborted) {
          prefetched = undefined;
          return 0;
        }
        committedBig?.();
        committedBig = decided.foreground;
        // The head moved within the scan (a long scan must not look stuck to /readyz).
        const moved = heads[decided.end];
        if (moved !== undefined) stall.waiting(moved.msgId);
        const next = await ahead.shift()!;
        if (next === undefined) return 0;
        // The group before it is folded into the model now: read through the model, not through it.
        next.overlay.rebase(model.flights);
        decided = next;
      }
    } finally {
      live = false;
      committedBig?.();
      decided.foreground?.();
      for (const g of ahead) void g.then((x) => x?.foreground?.(), () => undefined);
    }
  }

  const loop = createServiceLoop({
    clock,
    log,
    failedMsg: 'pump cannot reach its database; retrying with backoff',
    resumedMsg: 'pump resumed',
    wakeup,
    async step() {
      scans += 1;
      if (reloadRequested) {
        // Between scans, so no decision is being prepared against a half-folded model.
        reloadRequested = false;
        prefetched = undefined;
        const events = await model.reload(pool);
        log.info({ events, position: model.position }, 'write model reloaded after a projection rebuild');
      }
      // After a start from a snapshot, its days arrive beside the start; a scan that reads one not here yet waits for it and scans again (docs/recovery.md "Start cost").
      const unreadable = await model.ready(pool);
      if (unreadable) log.warn({ err: unreadable, position: model.position }, 'write model: the snapshot flights cannot be read; folded the log again before deciding');
      return model.deciding(scan, 0);
    },
    retryMs: (failures) => outageRetryDelay(cfg, failures),
    // The scan that just ended found nothing ready: whoever asked before it started has its answer.
    beforeWait() {
      const due = drainWaiters.filter((w) => w.after < scans);
      drainWaiters = drainWaiters.filter((w) => w.after >= scans);
      for (const w of due) w.resolve();
    },
  });

  return {
    name: 'pump',
    model,
    async start() {
      await model.catchUp(pool);
      await listener.start();
      log.info({ position: model.position, flights: model.flights.size }, 'pump started');
      loop.start();
    },
    async stop() {
      stop.abort(); // ends a scan between groups
      await loop.stop();
      await listener.stop();
      await decoder.close();
      for (const w of drainWaiters) w.resolve();
      drainWaiters = [];
    },
    drained() {
      return new Promise<void>((resolve) => {
        drainWaiters.push({ after: scans, resolve });
        wakeup.notify();
      });
    },
    wake: () => wakeup.notify(),
    readiness: stall.readiness,
  };
}
