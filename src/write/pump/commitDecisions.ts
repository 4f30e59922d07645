import type pg from 'pg';
import type { FlightsArchived } from '../../domain/changes.ts';
import type { Meta } from '../../domain/message.ts';
import { SqlState, sqlState, withTransaction, type PoolClient } from '../../platform/db.ts';
import type { Faults } from '../../platform/faults.ts';
import type { BackfillStatus } from '../../platform/mailbox/port.ts';
import { appendDecisions, lockPipeline, type NewDecision } from '../../log/appendDecisions.ts';
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
   * The writer lock (issue 13): the transaction commits only while this process proves it holds
   * the lock and writer_fence still carries its epoch (read FOR SHARE, so a successor's epoch bump
   * waits for this commit, and every later commit of ours sees it). Absent: unfenced.
   */
  readonly fence?: WriterFence;
  /** The fault port at 'pump.uncommitted' (default none). */
  readonly faults?: Faults;
}

/** writer_fence still carries `fence`'s epoch, or FencedError; the row stays share-locked until COMMIT. */
export async function checkFence(c: PoolClient, fence: WriterFence | undefined): Promise<void> {
  if (!fence) return;
  fence.assertHeld();
  const epoch = fence.epoch();
  if (epoch === undefined) return;
  const { rows } = await c.query<{ epoch: string }>('SELECT epoch::text AS epoch FROM writer_fence WHERE id = 1 FOR SHARE');
  if (rows[0]?.epoch !== epoch) {
    throw new FencedError(`not committing: another writer took the lock (writer_fence is at ${rows[0]?.epoch}, this process holds ${epoch})`);
  }
}

class Conflict extends Error {}

/**
 * Commit decisions for consecutive heads in ONE transaction (invariant 3): lock `pipeline_lock`,
 * check that the log is still where the write model was when they were decided (`basis`), append
 * one decision per head, advance each `proc_state` (compare-and-set on state + attempts) and
 * register the backfills — all or nothing. Database errors are thrown (the caller treats them as
 * INFRA and retries the heads one at a time).
 */
export async function commitDecisions(
  pool: pg.Pool,
  items: readonly Prepared[],
  basis: string,
  now: Date,
  opts: CommitOptions = {},
): Promise<CommitResult> {
  try {
    return await withTransaction(pool, async (c) => {
      await checkFence(c, opts.fence);
      const last = await lockPipeline(c);
      if (last !== basis) throw new Conflict(`log moved to ${last} (decided at ${basis})`);
      const all = await appendDecisions(c, last, items.flatMap((i) => [decisionOf(i.head.msgId, i.outcome), ...(i.sweeps ?? []).map(sweepDecisionOf)]), now);
      const positions: string[] = [];
      const sweepPositions: string[][] = [];
      let k = 0;
      for (const i of items) {
        positions.push(all[k++]!);
        sweepPositions.push(all.slice(k, (k += i.sweeps?.length ?? 0)));
      }
      await advanceProcStates(c, items, positions, now, opts.writeBack ?? true);
      await recordMeta(c, items);
      opts.faults?.reached('pump.uncommitted');
      opts.fence?.assertHeld(); // the lease is still fresh at COMMIT
      return { ok: true as const, positions, sweepPositions, recordedAt: now };
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

function procUpdateOf(o: Outcome): ProcUpdate {
  const base = { errorClass: null, causeClass: null, lastError: null, nextAttemptAt: null, failure: false, terminal: true };
  switch (o.kind) {
    case 'Applied':
      return { ...base, state: 'SUCCEEDED', backfillStatus: 'PROCESSED' };
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

async function advanceProcStates(c: PoolClient, items: readonly Prepared[], positions: readonly string[], now: Date, writeBack: boolean): Promise<void> {
  const u = items.map((i) => procUpdateOf(i.outcome));
  const res = await c.query(
    `UPDATE proc_state p SET
        state = u.state, error_class = u.error_class, cause_class = u.cause_class, last_error = u.last_error,
        attempts = p.attempts + 1,
        next_attempt_at = u.next_attempt_at,
        first_failure_at = CASE WHEN u.failure THEN COALESCE(p.first_failure_at, $1) ELSE p.first_failure_at END,
        decided_position = CASE WHEN u.terminal THEN u.position ELSE p.decided_position END,
        identity_key = COALESCE(p.identity_key, u.identity),
        backfill_state = CASE WHEN u.terminal THEN $15::text ELSE p.backfill_state END,
        backfill_status = CASE WHEN u.terminal THEN u.backfill_status ELSE p.backfill_status END,
        backfill_attempts = CASE WHEN u.terminal THEN 0 ELSE p.backfill_attempts END,
        backfill_next_at = CASE WHEN u.terminal THEN NULL ELSE p.backfill_next_at END,
        backfill_error = CASE WHEN u.terminal THEN NULL ELSE p.backfill_error END,
        updated_at = $1
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::boolean[],
                   $9::boolean[], $10::bigint[], $11::text[], $12::text[], $13::text[], $14::int[])
         AS u(msg_id, state, error_class, cause_class, last_error, next_attempt_at, failure,
              terminal, position, identity, backfill_status, expected_state, expected_attempts)
      WHERE p.msg_id = u.msg_id AND p.state = u.expected_state AND p.attempts = u.expected_attempts`,
    [
      now,
      items.map((i) => i.head.msgId),
      u.map((x) => x.state),
      u.map((x) => x.errorClass),
      u.map((x) => x.causeClass),
      u.map((x) => x.lastError),
      u.map((x) => x.nextAttemptAt),
      u.map((x) => x.failure),
      u.map((x) => x.terminal),
      positions,
      items.map((i) => i.outcome.identity),
      u.map((x) => x.backfillStatus),
      items.map((i) => i.head.state),
      items.map((i) => i.head.attempts),
      writeBack ? 'PENDING' : null,
    ],
  );
  if (res.rowCount !== items.length) throw new Conflict(`${items.length - (res.rowCount ?? 0)} head(s) changed state meanwhile`);
}

async function recordMeta(c: PoolClient, items: readonly Prepared[]): Promise<void> {
  const withMeta = items.filter((i) => i.outcome.meta !== null);
  if (withMeta.length === 0) return;
  const col = (f: (m: Meta) => string | null) => withMeta.map((i) => f(i.outcome.meta!));
  await c.query(
    `UPDATE inbox_message m SET sndr = u.sndr, seqn = u.seqn, dttm = u.dttm, type = u.type, styp = u.styp,
            rcvr = u.rcvr, mgid = u.mgid, rmid = u.rmid
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
         AS u(msg_id, sndr, seqn, dttm, type, styp, rcvr, mgid, rmid)
      WHERE m.msg_id = u.msg_id AND m.sndr IS NULL`,
    [
      withMeta.map((i) => i.head.msgId),
      col((m) => m.sndr), col((m) => m.seqn), col((m) => m.dttm), col((m) => m.rawType), col((m) => m.rawStyp),
      col((m) => m.rcvr), col((m) => m.mgid), col((m) => m.rmid),
    ],
  );
}
