/**
 * The engine of `msgx redecide` (docs/contract/design.md §10): fold the log up to a position, then decide every
 * message after it again — in log order, with the handlers, codec and configuration of this
 * process — into a second, private fold, and compare outcomes and end states with the log's.
 * Reads only; nothing it holds is visible to anyone else. Safe beside a running writer: it reads
 * committed positions up to a head fixed when it starts (and `advance` can go on later, e.g. under
 * the pipeline lock before corrections are appended).
 *
 * What is decided again, per decision of the range:
 *   - a decision that ended a message (Applied, Skipped, Dead, Parked): decode → identity → decide
 *     with today's code against the re-decided flights; retries (Failed) are bookkeeping, not
 *     outcomes, and are passed over;
 *   - the history sweep: decided again as the pump does, right behind each re-decided outcome that
 *     moves the latest operation day (sweepOnAdvance); the log's own sweeps (FlightsArchived)
 *     count on the log's side only;
 *   - a Correction: only on the log's side (the re-decision reaches its state by itself);
 *   - any other decision with changes (operator actions): applied as it is, on both sides.
 * A message whose logged outcome is a failure that replay can retry (not MALFORMED) and that now
 * decides is not folded in: it is listed apart (`replayableMessages`), for `msgx replay`, not for a
 * correction — unless a later decision of the range already ended it.
 */
import { latestDayAfter, sweepOnAdvance } from '../../domain/archive.ts';
import { isFlightChange, type Change } from '../../domain/changes.ts';
import { REPLAY_CLASSES } from '../../domain/contract.ts';
import { correctionChanges } from '../../domain/correction.ts';
import { changesOf } from '../../domain/decisionPayload.ts';
import type { Decider } from '../../domain/decide.ts';
import { applyDecision } from '../../domain/evolve.ts';
import type { FlightState } from '../../domain/flight.ts';
import { EMPTY_REFERENCE, foldReference, type ReferenceState } from '../../domain/reference/state.ts';
import { foldPlanRequests, NO_PLAN_REQUESTS, type PlanRequests } from '../../domain/planRequests.ts';
import { ENVELOPE_FIELDS, flightDiff, isEmptyDiff, type FlightDiff } from '../../domain/flightDiff.ts';
import { compareFlids } from '../../domain/flid.ts';
import { LegIndexedFlights } from '../../domain/legIndex.ts';
import type { Config } from '../../platform/config.ts';
import type { Queryable } from '../../platform/db.ts';
import { judge, readDecoded, type JudgeContext, type ReadHead } from '../pump/evaluate.ts';
import { flidsOf, type HeadHistory } from '../pump/outcome.ts';
import {
  canonicalJson, decidedOutcome, hasEffect, isFailure, loggedOutcome, outcomeDigest, sameOutcome, shown, type ComparableOutcome, type OutcomeView,
} from './outcomeView.ts';
import type { ReadDecision } from './decodedPage.ts';
import { inlinePageReader, type PageReader } from './pageReader.ts';
import { readLogPage } from '../../log/readPage.ts';
import { identitiesBoundBy } from './priorStates.ts';
import { TERMINAL_KINDS } from '../../log/appendDecisions.ts';
import { createHash } from 'node:crypto';

export interface MessageDifference {
  readonly msgId: string;
  readonly before: OutcomeView;
  readonly after: OutcomeView;
}

export interface FlightDifference extends FlightDiff {
  readonly flid: string;
}

/** The report of docs/contract/design.md §10 (the `--json` object). */
export interface RedecideReport {
  readonly reportId: string;
  readonly from: string;
  readonly to: string;
  /** Messages decided again. */
  readonly decided: number;
  readonly differingMessages: readonly MessageDifference[];
  readonly differingFlights: readonly FlightDifference[];
  /** Messages that failed (CODEC_ERROR, UNSUPPORTED, INFRA, EXHAUSTED) and decide now: replay them. */
  readonly replayableMessages: readonly MessageDifference[];
}

export interface RedecideProgress {
  /** Decisions read after `from`. */
  readonly events: number;
  /** Decisions in the range (from, to] as known now. */
  readonly total: number;
  readonly decided: number;
  readonly position: string;
}

export interface RedecisionOptions {
  readonly cfg: JudgeContext['cfg'] & Pick<Config, 'historyKeepDays'>;
  /** The handlers (default: the registry's). */
  readonly decide?: Decider;
  /** Report (and correct) only these flights; every message is still decided again. */
  readonly flights?: ReadonlySet<string>;
  readonly pageSize?: number;
  readonly onProgress?: (p: RedecideProgress) => void;
  readonly signal?: AbortSignal;
}

interface Entry {
  readonly position: string;
  readonly msgId: string;
  readonly before: OutcomeView;
  readonly after: OutcomeView;
  readonly digest: string;
  readonly flids: readonly string[];
}

/** One Correction decision to append: its flight, changes and what it names. */
export interface PlannedCorrection {
  readonly flid: string;
  readonly changes: Change[];
  readonly supersedes: { msgId: string; digest: string }[];
  readonly handlerVersions: Record<string, number>;
}

const NONE: ReadonlySet<string> = new Set();

/** The report's entry of a message whose re-decided outcome differs (or is a replay candidate). */
function entryOf(d: ReadDecision, before: ComparableOutcome, after: ComparableOutcome): Entry {
  const a = shown(after);
  const flids = new Set([...flidsOf(before.changes), ...flidsOf(after.changes)]);
  return { position: d.position, msgId: d.msgId!, before: shown(before), after: a, digest: outcomeDigest(a), flids: [...flids] };
}
/** Decisions per page read. */
export const DEFAULT_PAGE_SIZE = 5000;

/** A decision that ended a message (with the message's raw input, `decoded`): decided again. */
const isOutcomeKind = (kind: string): boolean => (TERMINAL_KINDS as readonly string[]).includes(kind);

/** An outcome decision's message as a fresh head (no attempts: the verdict of the code alone). */
const HEAD_HISTORY: HeadHistory = { attempts: 0, firstFailureAt: null };
const REPLAYABLE_VERDICTS: ReadonlySet<string> = new Set(REPLAY_CLASSES);

export class Redecision {
  /** The log's flights (every decision folded as recorded, corrections included). */
  readonly logFlights = new Map<string, FlightState>();
  /** The re-decided flights, with their leg index (AIDX legs find flights by it, as in the pump). */
  private newFlights: Map<string, FlightState> = new LegIndexedFlights();
  private readonly touched = new Set<string>();
  private bound = new Map<string, string>();
  private readonly differing: Entry[] = [];
  private readonly replayable = new Map<string, Entry>();
  /** msg id → corrections that superseded an outcome of it (digest and correction position). */
  private readonly superseded = new Map<string, { digest: string; position: string }[]>();
  /** flid → handler name → version, of the re-decided outcomes that touched it. */
  private readonly handlers = new Map<string, Map<string, number>>();
  /** The re-decided reference store (reference messages are decided against it, as in the pump). */
  private refNew: ReferenceState = EMPTY_REFERENCE;
  /** Our plan requests (recorded decisions, the same on both sides). */
  private requests: PlanRequests = NO_PLAN_REQUESTS;
  /** The latest operation day of the re-decided traffic (the sweep's "today"). */
  private latestNew: string | null = null;
  private pos: string;
  /** judge's context and head, refilled for each message (redecide). */
  private readonly judgeContext: { -readonly [K in keyof JudgeContext]: JudgeContext[K] };
  private readonly head: { msgId: string; attempts: number; firstFailureAt: Date | null } = {
    msgId: '', attempts: HEAD_HISTORY.attempts, firstFailureAt: HEAD_HISTORY.firstFailureAt,
  };
  private events = 0;
  private decidedCount = 0;
  private total = 0;

  private constructor(readonly from: string, private readonly opts: RedecisionOptions) {
    this.pos = from;
    this.judgeContext = { cfg: opts.cfg, now: new Date(0), flights: this.newFlights, reference: this.refNew, planRequests: this.requests, owner: null };
    if (opts.decide) this.judgeContext.decide = opts.decide;
  }

  /** Fold the log up to `from` (both sides start there). */
  static async start(q: Queryable, from: string, opts: RedecisionOptions): Promise<Redecision> {
    const r = new Redecision(from, opts);
    const page = opts.pageSize ?? DEFAULT_PAGE_SIZE;
    let after = '0';
    for (;;) {
      const rows = await readLogPage(q, after, from, page, false);
      for (const d of rows) {
        const changes = changesOf(d);
        if (changes.length > 0) {
          applyDecision(r.logFlights, { position: d.position, msgId: d.msgId, recordedAt: d.recordedAt, changes });
          r.latestNew = latestDayAfter(r.latestNew, changes);
          r.refNew = foldReference(r.refNew, changes);
          r.requests = foldPlanRequests(r.requests, changes);
        }
        after = d.position;
      }
      if (rows.length < page) break;
      opts.signal?.throwIfAborted();
    }
    // States are never edited once in a map (applyDecision replaces them), so the two folds may share them.
    r.newFlights = LegIndexedFlights.of(r.logFlights);
    r.bound = await identitiesBoundBy(q, from);
    return r;
  }

  /** The last position folded. */
  get position(): string {
    return this.pos;
  }

  /**
   * Read and decide again every decision after `position` up to `upTo`, from `reader` (default:
   * read and decode in this thread, the next page read while this one is decided; runRedecide
   * passes a WorkerPageReader, which reads and decodes on the other core).
   */
  async advance(q: Queryable, upTo: string, reader: PageReader = inlinePageReader(q, this.opts.cfg)): Promise<void> {
    const page = this.opts.pageSize ?? DEFAULT_PAGE_SIZE;
    this.total = Math.max(this.total, Number(BigInt(upTo) - BigInt(this.from)));
    const { cfg } = this.opts;
    for await (const rows of reader.pages(this.pos, upTo, page)) {
      for (const d of rows) {
        if (d.decoded !== null && isOutcomeKind(d.kind)) {
          const now = new Date(d.recordedAt);
          this.step(d, readDecoded(HEAD_HISTORY, d.decoded, cfg, now), now);
        } else {
          this.step(d, undefined, null);
        }
      }
      this.pos = rows[rows.length - 1]!.position;
      this.opts.onProgress?.({ events: this.events, total: this.total, decided: this.decidedCount, position: this.pos });
      this.opts.signal?.throwIfAborted();
    }
  }

  /** `now`: the decision's recordedAt as a Date when `read` is given. */
  private step(d: ReadDecision, read: ReadHead | undefined, now: Date | null): void {
    this.events++;
    const changes = changesOf(d);
    const outcome = read !== undefined;
    // Whether both folds hold the very same states of the flights this decision touches (see redecide).
    const inSync = outcome && changes.length > 0 && this.inSync(changes);
    const logTouched = changes.length > 0 ? this.fold(this.logFlights, d, changes) : NONE;
    if (d.kind === 'Correction') {
      for (const s of d.payload.supersedes ?? []) {
        const list = this.superseded.get(s.msgId) ?? [];
        list.push({ digest: s.digest, position: d.position });
        this.superseded.set(s.msgId, list);
      }
      return;
    }
    if (outcome) {
      this.redecide(d, read, now!, inSync, logTouched);
      return;
    }
    if (d.kind === 'FlightsArchived') return; // the re-decided traffic sweeps by itself (redecide)
    if (changes.length > 0) {
      this.fold(this.newFlights, d, changes);
      this.latestNew = latestDayAfter(this.latestNew, changes);
      this.refNew = foldReference(this.refNew, changes);
      this.requests = foldPlanRequests(this.requests, changes);
    }
  }

  private inSync(changes: readonly Change[]): boolean {
    for (const c of changes) {
      if (c.type === 'FlightsArchived') {
        if (c.flids.some((f) => this.logFlights.get(f) !== this.newFlights.get(f))) return false;
      } else if (isFlightChange(c) && this.logFlights.get(c.flid) !== this.newFlights.get(c.flid)) {
        return false;
      }
    }
    return true;
  }

  private fold(flights: Map<string, FlightState>, d: ReadDecision, changes: readonly Change[]): Set<string> {
    const touched = applyDecision(flights, { position: d.position, msgId: d.msgId, recordedAt: d.recordedAt, changes });
    for (const f of touched) this.touched.add(f);
    return touched;
  }

  /**
   * Decide one message again. `inSync`: before the log's fold of this decision both sides held the
   * same states of its flights; `logTouched`: the flights that fold touched.
   */
  private redecide(d: ReadDecision, read: ReadHead, now: Date, inSync: boolean, logTouched: ReadonlySet<string>): void {
    this.decidedCount++;
    const msgId = d.msgId!;
    // A later outcome of the same message (it was replayed) supersedes an earlier replay candidate.
    if (this.replayable.size > 0) this.replayable.delete(msgId);
    const { cfg } = this.opts;
    const identity = read.ok ? read.identity : null;
    const holder = identity === null ? undefined : this.bound.get(identity);
    const owner = holder === undefined || holder === msgId ? null : holder;
    // One context and head, refilled per message (judge keeps neither).
    const ctx = this.judgeContext;
    ctx.now = now;
    ctx.flights = this.newFlights;
    ctx.reference = this.refNew;
    ctx.planRequests = this.requests;
    ctx.owner = owner;
    this.head.msgId = msgId;
    const outcome = judge(this.head, read, ctx);
    const before = loggedOutcome(d);
    const after = decidedOutcome(outcome);
    if (isFailure(before) && REPLAYABLE_VERDICTS.has(before.verdict ?? '') && hasEffect(after)) {
      // An ordinary replay, not a correction: the log's outcome stays in the re-decided fold.
      this.replayable.set(msgId, entryOf(d, before, after));
      return;
    }
    if (outcome.identity !== null && identity !== null && holder === undefined) this.bound.set(identity, msgId);
    const same = sameOutcome(before, after);
    if (!same) this.differing.push(entryOf(d, before, after));
    if (outcome.kind === 'Applied') {
      if (outcome.changes.length === 0) return; // nothing to fold, no day to move (both sides agree or differ already)
      this.refNew = foldReference(this.refNew, outcome.changes);
      let touched: ReadonlySet<string>;
      if (same && inSync) {
        // Same changes onto the same states: the log's new states are the re-decided ones too
        // (states are never edited once in a map), so fold once and share — half the work.
        touched = logTouched;
        for (const flid of touched) {
          const state = this.logFlights.get(flid);
          if (state === undefined) this.newFlights.delete(flid);
          else this.newFlights.set(flid, state);
        }
      } else {
        touched = this.fold(this.newFlights, d, outcome.changes);
      }
      for (const flid of touched) {
        let hs = this.handlers.get(flid);
        if (hs === undefined) this.handlers.set(flid, (hs = new Map<string, number>()));
        if (hs.get(outcome.handler) !== outcome.handlerVersion) hs.set(outcome.handler, outcome.handlerVersion);
      }
      // The history sweep in FIFO order, as the pump decides it (traffic time, never the clock).
      const next = latestDayAfter(this.latestNew, outcome.changes);
      if (next !== this.latestNew) {
        for (const sweep of sweepOnAdvance(this.newFlights, this.latestNew, next, cfg.historyKeepDays)) this.fold(this.newFlights, d, [sweep]);
        this.latestNew = next;
      }
    }
  }

  private wanted(flids: readonly string[]): boolean {
    const only = this.opts.flights;
    return only === undefined || flids.some((f) => only.has(f));
  }

  private isSuperseded(e: Entry): boolean {
    return (this.superseded.get(e.msgId) ?? []).some((s) => s.digest === e.digest && BigInt(s.position) > BigInt(e.position));
  }

  private flightDifferences(): FlightDifference[] {
    const out: FlightDifference[] = [];
    for (const flid of [...this.touched].sort(compareFlids)) {
      if (!this.wanted([flid])) continue;
      const log = this.logFlights.get(flid);
      if (log !== undefined && log === this.newFlights.get(flid)) continue;
      const diff = flightDiff(this.logFlights.get(flid), this.newFlights.get(flid), { ignore: ENVELOPE_FIELDS });
      if (!isEmptyDiff(diff)) out.push({ flid, ...diff });
    }
    return out;
  }

  private openEntries(): Entry[] {
    return this.differing.filter((e) => !this.isSuperseded(e) && this.wanted(e.flids));
  }

  /**
   * The report. `replayStates` (msg id → current processing state) drops replay candidates that
   * were replayed meanwhile (no longer PARKED/DEAD/FAILED).
   */
  report(replayStates?: ReadonlyMap<string, string>): RedecideReport {
    const differingFlights = this.flightDifferences();
    const entries = this.openEntries();
    const stillFailed = (id: string) => {
      const s = replayStates?.get(id);
      return s === undefined || s === 'PARKED' || s === 'DEAD' || s === 'FAILED';
    };
    const replayable = [...this.replayable.values()].filter((e) => this.wanted(e.flids) && stillFailed(e.msgId));
    const view = (e: Entry): MessageDifference => ({ msgId: e.msgId, before: e.before, after: e.after });
    const reportId = createHash('sha256')
      .update(canonicalJson({ from: this.from, to: this.pos, m: entries.map((e) => [e.msgId, e.digest]), f: differingFlights }))
      .digest('hex')
      .slice(0, 16);
    return {
      reportId,
      from: this.from,
      to: this.pos,
      decided: this.decidedCount,
      differingMessages: entries.map(view),
      differingFlights,
      replayableMessages: replayable.map(view),
    };
  }

  /** Message ids of the replay candidates (to look up their current state). */
  replayCandidates(): string[] {
    return [...this.replayable.keys()];
  }

  /** One correction per differing flight: the changes that bring the log's flight to the re-decided one. */
  corrections(): PlannedCorrection[] {
    const entries = this.openEntries();
    return this.flightDifferences().map(({ flid }) => ({
      flid,
      changes: correctionChanges(this.logFlights.get(flid), this.newFlights.get(flid)),
      supersedes: entries.filter((e) => e.flids.includes(flid)).map((e) => ({ msgId: e.msgId, digest: e.digest })),
      handlerVersions: Object.fromEntries([...(this.handlers.get(flid) ?? new Map<string, number>())].sort(([a], [b]) => (a < b ? -1 : 1))),
    }));
  }
}
