import type pg from 'pg';
import type { FlightsArchived } from '../../domain/changes.ts';
import type { PoolClient } from '../../platform/db.ts';
import type { Faults } from '../../platform/faults.ts';
import type { NewDecision } from '../../log/appendDecisions.ts';
import { appendWithOutcomes, stageAppendWithOutcomes, type MessageOutcome, type ProcUpdate, type StagedAppend } from '../../log/appendWithOutcomes.ts';
import { assertFenceEpoch, type WriterFence } from '../../platform/writerFence.ts';
import type { Head } from './findHeads.ts';
import { flidsOf, type Outcome } from './outcome.ts';

export type CommitResult =
  | {
      readonly ok: true;
      /** The position of each item's own decision. */
      readonly positions: readonly string[];
      /** The positions of each item's sweeps (empty lists for most). */
      readonly sweepPositions: readonly (readonly string[])[];
      readonly recordedAt: Date;
    }
  /** Someone else appended first, a head changed, or an identity got bound: re-decide. */
  | { readonly ok: false; readonly conflict: string };

export interface Prepared {
  readonly head: Head;
  readonly outcome: Outcome;
  /** History sweeps owed right behind this head's decision: it moved the latest operation day. */
  readonly sweeps?: readonly SweepDecision[];
  /** Its decision, when it was made beforehand (a big head's, its flids and stored payload text in slices: src/log/appendDecisions.ts). */
  readonly decision?: NewDecision;
}

/** One FlightsArchived decision of the history sweep, decided in FIFO order (src/domain/archive.ts). */
export interface SweepDecision {
  readonly change: FlightsArchived;
  readonly keepDays: number;
  /** The latest operation day that made it due. */
  readonly latestDay: string;
}

export interface CommitOptions {
  /**
   * Register the CMINMSGS write-back of terminal decisions (backfill_state PENDING). false in
   * shadow mode: no write-back, and no pending write-back work left to replay later.
   */
  readonly writeBack?: boolean;
  /**
   * The writer lock (docs/security.md): the transaction commits only while this process proves it holds
   * the lock and writer_fence still carries its epoch (read FOR SHARE, so a successor's epoch bump
   * waits for this commit, and every later commit of ours sees it). Absent: unfenced.
   */
  readonly fence?: WriterFence;
  /** The fault port at 'pump.uncommitted' (default none). */
  readonly faults?: Faults;
}

/** The fence's row, share-locked until COMMIT (appendWithOutcomes checks it inside its statement). */
const FENCE_ROW = 'SELECT epoch::text AS epoch FROM writer_fence WHERE id = 1 FOR SHARE';

/** writer_fence still carries `fence`'s epoch, or FencedError; the row stays share-locked until COMMIT. */
export async function checkFence(c: PoolClient, fence: WriterFence | undefined): Promise<void> {
  if (!fence) return;
  await fence.confirm?.();
  fence.assertHeld();
  const epoch = fence.epoch();
  if (epoch === undefined) return;
  const { rows } = await c.query<Record<string, unknown>>(FENCE_ROW);
  assertFenceEpoch(fence, epoch, rows[0]?.epoch);
}

/**
 * A group's commit, built before it is sent: the positions it will take after `basis` and the
 * parameters of its statement (src/log/appendWithOutcomes.ts). The pump stages a group while the
 * one before it commits, so the commit itself needs no more CPU than sending.
 */
export interface StagedCommit {
  readonly items: readonly Prepared[];
  readonly basis: string;
  readonly now: Date;
  /** The position of each item's own decision. */
  readonly positions: readonly string[];
  /** The positions of each item's sweeps (empty lists for most). */
  readonly sweepPositions: readonly (readonly string[])[];
  readonly append: StagedAppend;
}

/** Stage the commit of `items` decided at `basis` (see StagedCommit). Pure. */
export function stageCommit(items: readonly Prepared[], basis: string, now: Date, writeBack = true): StagedCommit {
  const decisions: NewDecision[] = [];
  const outcomes: MessageOutcome[] = new Array<MessageOutcome>(items.length);
  for (let k = 0; k < items.length; k++) {
    const { head, outcome, sweeps, decision } = items[k]!;
    outcomes[k] = {
      msgId: head.msgId, expectedState: head.state, expectedAttempts: head.attempts,
      update: procUpdateOf(outcome), identity: outcome.identity, meta: outcome.meta, ingestedAt: head.ingestedAt, decision: decisions.length,
    };
    decisions.push(decision ?? decisionOf(head.msgId, outcome));
    if (sweeps) for (const s of sweeps) decisions.push(sweepDecisionOf(s));
  }
  const append = stageAppendWithOutcomes(basis, decisions, outcomes, now, writeBack);
  const all = append.positions;
  const positions = outcomes.map((o) => all[o.decision]!);
  const sweepPositions = items.map((i, k) => (i.sweeps?.length ? all.slice(outcomes[k]!.decision + 1, outcomes[k]!.decision + 1 + i.sweeps.length) : NO_SWEEPS));
  return { items, basis, now, positions, sweepPositions, append };
}

const NO_SWEEPS: readonly string[] = Object.freeze([]);

/**
 * Commit decisions for consecutive heads in ONE transaction (invariant 3): check that the log is
 * still where the write model was when they were decided (`basis`), append one decision per head,
 * advance each `proc_state` (compare-and-set on state + attempts) and register the backfills — all
 * or nothing. Database errors are thrown (the caller treats them as INFRA and retries the heads one
 * at a time).
 *
 * One round trip, whatever the group's size: one autocommit statement that takes the row locks
 * (writer_fence FOR SHARE, pipeline_lock FOR UPDATE, the heads' proc_state rows) and writes only
 * when all are as decided (appendWithOutcomes, src/log/appendWithOutcomes.ts).
 */
export async function commitDecisions(
  pool: pg.Pool,
  items: readonly Prepared[],
  basis: string,
  now: Date,
  opts: CommitOptions = {},
): Promise<CommitResult> {
  return commitStaged(pool, stageCommit(items, basis, now, opts.writeBack ?? true), opts);
}

/** commitDecisions of a staged group (its writeBack was chosen when it was staged). */
export async function commitStaged(pool: pg.Pool, staged: StagedCommit, opts: Omit<CommitOptions, 'writeBack'> = {}): Promise<CommitResult> {
  // Decided and staged, nothing sent: a crash here leaves nothing in PostgreSQL (docs/recovery.md).
  opts.faults?.reached('pump.uncommitted');
  const result = await appendWithOutcomes(pool, staged.append, opts.fence);
  if (!result.ok) return result;
  return { ok: true, positions: staged.positions, sweepPositions: staged.sweepPositions, recordedAt: staged.now };
}

/** The history sweep's decision: no message, the flids listed (decision_event.flids), its reason in the payload. */
export function sweepDecisionOf(s: SweepDecision): NewDecision {
  return {
    msgId: null,
    kind: 'FlightsArchived',
    flids: s.change.flids,
    payload: { changes: [s.change], keepDays: s.keepDays, latestDay: s.latestDay },
  };
}

/** `flids`: the Applied decision's flids when already made (flidsSteps), else made here. */
export function decisionOf(msgId: string, o: Outcome, flids?: string[]): NewDecision {
  switch (o.kind) {
    case 'Applied':
      return {
        msgId,
        kind: 'Applied',
        handler: o.handler,
        handlerVersion: o.handlerVersion,
        flids: flids ?? flidsOf(o.changes),
        payload: {
          changes: o.changes,
          ...(o.unknownFlids ? { unknownFlids: o.unknownFlids } : {}),
          ...(o.deletedFlids ? { deletedFlids: o.deletedFlids } : {}),
          ...(o.staleFlids ? { staleFlids: o.staleFlids } : {}),
          ...(o.blocks ? { blocks: o.blocks } : {}),
          ...(o.reference ?? {}),
        },
      };
    case 'Skipped':
      return {
        msgId, kind: 'Skipped', handler: o.handler, handlerVersion: o.handlerVersion, flids: o.flids,
        payload: { reason: o.reason, ...(o.blocks ? { blocks: o.blocks } : {}), ...(o.reference ?? {}) },
      };
    case 'Failed':
      return {
        msgId,
        kind: 'Failed',
        payload: { errorClass: o.errorClass, error: o.error, attempt: o.attempt, nextAttemptAt: o.nextAttemptAt.toISOString() },
      };
    case 'Parked':
      return { msgId, kind: 'Parked', payload: { errorClass: o.errorClass, error: o.error, attempt: o.attempt } };
    case 'Dead':
      return {
        msgId,
        kind: 'Dead',
        payload: { errorClass: o.errorClass, error: o.error, attempt: o.attempt, ...(o.causeClass ? { causeClass: o.causeClass } : {}) },
      };
  }
}

const TERMINAL_OK = { errorClass: null, causeClass: null, lastError: null, nextAttemptAt: null, failure: false, terminal: true } as const;
/** Most decisions: one shared value, not a new object per head. */
const APPLIED: ProcUpdate = Object.freeze({ ...TERMINAL_OK, state: 'SUCCEEDED', backfillStatus: 'PROCESSED' });

function procUpdateOf(o: Outcome): ProcUpdate {
  const base = TERMINAL_OK;
  switch (o.kind) {
    case 'Applied':
      return APPLIED;
    case 'Skipped':
      return { ...base, state: 'SKIPPED', lastError: o.reason, backfillStatus: 'SKIPPED' };
    case 'Failed':
      return { ...base, state: 'FAILED', errorClass: o.errorClass, lastError: o.error, nextAttemptAt: o.nextAttemptAt, failure: true, terminal: false, backfillStatus: null };
    case 'Parked':
      return { ...base, state: 'PARKED', errorClass: o.errorClass, lastError: o.error, failure: true, backfillStatus: 'PARKED' };
    case 'Dead':
      return { ...base, state: 'DEAD', errorClass: o.errorClass, causeClass: o.causeClass, lastError: o.error, failure: true, backfillStatus: 'DEAD' };
  }
}
