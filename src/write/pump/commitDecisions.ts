import type pg from 'pg';
import type { FlightsArchived } from '../../domain/changes.ts';
import { SqlState, sqlState, withOpenedTransaction, type PoolClient } from '../../platform/db.ts';
import type { Faults } from '../../platform/faults.ts';
import type { BackfillStatus } from '../../platform/mailbox/port.ts';
import { ArrayLiteral, asParameter } from '../../platform/sqlBatch.ts';
import { APPEND_CTES, APPEND_NOTIFY, appendValues, lockedPosition, PIPELINE_LOCK_ROW, type NewDecision } from '../../log/appendDecisions.ts';
import { FencedError, type WriterFence } from '../../platform/writerFence.ts';
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

/** The fence's opening statement of a decision transaction (none when unfenced). */
const FENCE_ROW = 'SELECT epoch::text AS epoch FROM writer_fence WHERE id = 1 FOR SHARE';

/** Throws FencedError unless `row` (FENCE_ROW's, share-locked until COMMIT) carries `fence`'s epoch. */
function checkFenceRow(fence: WriterFence, epoch: string, row: Record<string, unknown> | undefined): void {
  if (row?.epoch !== epoch) {
    throw new FencedError(`not committing: another writer took the lock (writer_fence is at ${String(row?.epoch)}, this process holds ${epoch})`);
  }
  fence.assertHeld();
}

/** writer_fence still carries `fence`'s epoch, or FencedError; the row stays share-locked until COMMIT. */
export async function checkFence(c: PoolClient, fence: WriterFence | undefined): Promise<void> {
  if (!fence) return;
  await fence.confirm?.();
  fence.assertHeld();
  const epoch = fence.epoch();
  if (epoch === undefined) return;
  const { rows } = await c.query<Record<string, unknown>>(FENCE_ROW);
  checkFenceRow(fence, epoch, rows[0]);
}

class Conflict extends Error {}

/**
 * A group's commit, built before its transaction opens: the positions it will take after `basis`
 * and the parameters of COMMIT_GROUP (JSON texts, array literals). The pump stages a group while
 * the one before it commits, so the commit's own round trips need no more CPU than sending.
 */
export interface StagedCommit {
  readonly items: readonly Prepared[];
  readonly basis: string;
  readonly now: Date;
  /** The position of each item's own decision. */
  readonly positions: readonly string[];
  /** The positions of each item's sweeps (empty lists for most). */
  readonly sweepPositions: readonly (readonly string[])[];
  readonly values: readonly unknown[];
}

/** Stage the commit of `items` decided at `basis` (see StagedCommit). Pure. */
export function stageCommit(items: readonly Prepared[], basis: string, now: Date, writeBack = true): StagedCommit {
  const append = appendValues(basis, items.flatMap((i) => [decisionOf(i.head.msgId, i.outcome), ...(i.sweeps ?? []).map(sweepDecisionOf)]), now);
  const all = append.positions;
  const positions: string[] = [];
  const sweepPositions: string[][] = [];
  let k = 0;
  for (const i of items) {
    positions.push(all[k++]!);
    sweepPositions.push(all.slice(k, (k += i.sweeps?.length ?? 0)));
  }
  const values = [...append.values.map(asParameter), ...advanceValues(items, positions, now, writeBack), ...metaValues(items)];
  return { items, basis, now, positions, sweepPositions, values };
}

/**
 * Commit decisions for consecutive heads in ONE transaction (invariant 3): lock `pipeline_lock`,
 * check that the log is still where the write model was when they were decided (`basis`), append
 * one decision per head, advance each `proc_state` (compare-and-set on state + attempts) and
 * register the backfills — all or nothing. Database errors are thrown (the caller treats them as
 * INFRA and retries the heads one at a time).
 *
 * Three round trips, whatever the group's size: BEGIN with the row locks (writer_fence FOR SHARE,
 * pipeline_lock FOR UPDATE); one prepared statement whose data-modifying CTEs append the decisions,
 * advance proc_state and record the META columns; COMMIT.
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
  const { items, basis, now } = staged;
  const fence = opts.fence;
  await fence?.confirm?.();
  fence?.assertHeld();
  const epoch = fence?.epoch();
  const opening = epoch === undefined ? [PIPELINE_LOCK_ROW] : [FENCE_ROW, PIPELINE_LOCK_ROW];
  try {
    return await withOpenedTransaction(pool, opening, async (c, opened) => {
      if (fence && epoch !== undefined) checkFenceRow(fence, epoch, opened[0]![0]);
      const last = lockedPosition(opened.at(-1)!);
      if (last !== basis) throw new Conflict(`log moved to ${last} (decided at ${basis})`);
      // Named: PostgreSQL parses and plans it once per connection, not once per group.
      const { rows } = await c.query<{ advanced: number }>({ name: 'msgx_pump_commit_group', text: COMMIT_GROUP, values: staged.values as unknown[] });
      const advanced = rows[0]!.advanced;
      if (advanced !== items.length) throw new Conflict(`${items.length - advanced} head(s) changed state meanwhile`);
      opts.faults?.reached('pump.uncommitted');
      fence?.assertHeld(); // the lease is still fresh at COMMIT
      return { ok: true as const, positions: staged.positions, sweepPositions: staged.sweepPositions, recordedAt: now };
    });
  } catch (err) {
    if (err instanceof Conflict) return { ok: false, conflict: err.message };
    if (sqlState(err) === SqlState.uniqueViolation && items.some((i) => i.outcome.identity !== null)) {
      return { ok: false, conflict: 'an identity was bound meanwhile' };
    }
    throw err;
  }
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

export function decisionOf(msgId: string, o: Outcome): NewDecision {
  switch (o.kind) {
    case 'Applied':
      return {
        msgId,
        kind: 'Applied',
        handler: o.handler,
        handlerVersion: o.handlerVersion,
        flids: flidsOf(o.changes),
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

interface ProcUpdate {
  state: 'SUCCEEDED' | 'SKIPPED' | 'FAILED' | 'DEAD' | 'PARKED';
  errorClass: string | null;
  causeClass: string | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  failure: boolean;
  terminal: boolean;
  backfillStatus: BackfillStatus | null;
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

// The proc_state advance of the group's heads (compare-and-set on state + attempts), after the
// append's parameters: $11 now, $12 the backfill_state of terminal decisions, $13–$25 the columns of u.
const ADVANCE_PROC_STATES = `UPDATE proc_state p SET
        state = u.state, error_class = u.error_class, cause_class = u.cause_class, last_error = u.last_error,
        attempts = p.attempts + 1,
        next_attempt_at = u.next_attempt_at,
        first_failure_at = CASE WHEN u.failure THEN COALESCE(p.first_failure_at, $11::timestamptz) ELSE p.first_failure_at END,
        decided_position = CASE WHEN u.terminal THEN u.position ELSE p.decided_position END,
        identity_key = COALESCE(p.identity_key, u.identity),
        backfill_state = CASE WHEN u.terminal THEN $12::text ELSE p.backfill_state END,
        backfill_status = CASE WHEN u.terminal THEN u.backfill_status ELSE p.backfill_status END,
        backfill_attempts = CASE WHEN u.terminal THEN 0 ELSE p.backfill_attempts END,
        backfill_next_at = CASE WHEN u.terminal THEN NULL ELSE p.backfill_next_at END,
        backfill_error = CASE WHEN u.terminal THEN NULL ELSE p.backfill_error END,
        updated_at = $11::timestamptz
       FROM unnest($13::bigint[], $14::text[], $15::text[], $16::text[], $17::text[], $18::timestamptz[], $19::boolean[],
                   $20::boolean[], $21::bigint[], $22::text[], $23::text[], $24::text[], $25::int[])
         AS u(msg_id, state, error_class, cause_class, last_error, next_attempt_at, failure,
              terminal, position, identity, backfill_status, expected_state, expected_attempts)
      WHERE p.msg_id = u.msg_id AND p.state = u.expected_state AND p.attempts = u.expected_attempts`;

// The META columns of the heads that have them: $26–$34 (empty arrays: none has).
const RECORD_META = `UPDATE inbox_message m SET sndr = u.sndr, seqn = u.seqn, dttm = u.dttm, type = u.type, styp = u.styp,
            rcvr = u.rcvr, mgid = u.mgid, rmid = u.rmid
       FROM unnest($26::bigint[], $27::text[], $28::text[], $29::text[], $30::text[], $31::text[], $32::text[], $33::text[], $34::text[])
         AS u(msg_id, sndr, seqn, dttm, type, styp, rcvr, mgid, rmid)
      WHERE m.msg_id = u.msg_id AND m.sndr IS NULL`;

/** A group's writes after the locks, as one statement: append, advance proc_state, record META, NOTIFY. */
const COMMIT_GROUP = `WITH ${APPEND_CTES},
    advanced AS (${ADVANCE_PROC_STATES} RETURNING 1),
    meta AS (${RECORD_META})
  SELECT ${APPEND_NOTIFY}, (SELECT count(*)::int FROM advanced) AS advanced`;

/** The parameters $11–$25 of ADVANCE_PROC_STATES: one pass over the group, the arrays as literals. */
function advanceValues(items: readonly Prepared[], positions: readonly string[], now: Date, writeBack: boolean): unknown[] {
  const cols = Array.from({ length: 13 }, () => new ArrayLiteral());
  const [msgIds, states, errorClasses, causeClasses, lastErrors, nextAttempts, failures, terminals, decided, identities, statuses, expectedStates, expectedAttempts] = cols as [
    ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral,
  ];
  items.forEach((i, k) => {
    const u = procUpdateOf(i.outcome);
    msgIds.add(i.head.msgId);
    states.add(u.state);
    errorClasses.add(u.errorClass);
    causeClasses.add(u.causeClass);
    lastErrors.add(u.lastError);
    nextAttempts.add(u.nextAttemptAt);
    failures.add(u.failure);
    terminals.add(u.terminal);
    decided.add(positions[k]!);
    identities.add(i.outcome.identity);
    statuses.add(u.backfillStatus);
    expectedStates.add(i.head.state);
    expectedAttempts.add(i.head.attempts);
  });
  return [now, writeBack ? 'PENDING' : null, ...cols.map((c) => c.text())];
}

/** The parameters $26–$34 of RECORD_META (empty arrays: no head has META), as literals. */
function metaValues(items: readonly Prepared[]): unknown[] {
  const cols = Array.from({ length: 9 }, () => new ArrayLiteral());
  for (const i of items) {
    const m = i.outcome.meta;
    if (m === null) continue;
    cols[0]!.add(i.head.msgId);
    cols[1]!.add(m.sndr);
    cols[2]!.add(m.seqn);
    cols[3]!.add(m.dttm);
    cols[4]!.add(m.rawType);
    cols[5]!.add(m.rawStyp);
    cols[6]!.add(m.rcvr);
    cols[7]!.add(m.mgid);
    cols[8]!.add(m.rmid);
  }
  return cols.map((c) => c.text());
}
