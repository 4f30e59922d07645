/**
 * Append decisions together with what they do to their messages — each message's `proc_state`
 * (compare-and-set on the state and attempts it was decided from) and its META columns — as ONE
 * autocommit statement that checks the writer fence and the log's position itself
 * (docs/architecture.md "src/log", "Group commit"). The pump commits its groups through it.
 *
 * Staged first (stageAppendWithOutcomes, pure: positions and parameters as JSON texts and array
 * literals), so the commit itself only sends. All or nothing: when writer_fence does not carry the
 * fence's epoch, the log is no longer at the position the decisions were made at, or any message
 * is no longer in the state it was decided from, the statement writes nothing and says which.
 */
import type pg from 'pg';
import type { Meta } from '../domain/message.ts';
import { SqlState, sqlState } from '../platform/db.ts';
import type { BackfillStatus } from '../platform/mailbox/port.ts';
import { ArrayLiteral, asParameter } from '../platform/sqlBatch.ts';
import { assertFenceEpoch, type WriterFence } from '../platform/writerFence.ts';
import { APPEND_NOTIFY, appendCtes, appendValues, type AppendedRow, type NewDecision } from './appendDecisions.ts';
import { monthOf, monthStart, nextMonth } from './historyMonths.ts';

/** What a decision writes into its message's proc_state row. */
export interface ProcUpdate {
  readonly state: 'SUCCEEDED' | 'SKIPPED' | 'FAILED' | 'DEAD' | 'PARKED';
  readonly errorClass: string | null;
  readonly causeClass: string | null;
  readonly lastError: string | null;
  readonly nextAttemptAt: Date | null;
  /** Sets first_failure_at when it has none. */
  readonly failure: boolean;
  /** Ends the message's processing: decided_position and the CMINMSGS write-back are recorded. */
  readonly terminal: boolean;
  readonly backfillStatus: BackfillStatus | null;
}

/** One message's outcome: its proc_state as decided from, what its decision writes, its identity and META. */
export interface MessageOutcome {
  readonly msgId: string;
  readonly expectedState: string;
  readonly expectedAttempts: number;
  readonly update: ProcUpdate;
  /** Bound to the message unless it has one (the UNIQUE index refuses a second owner). */
  readonly identity: string | null;
  /** Written to inbox_message's META columns when they are still empty. */
  readonly meta: Meta | null;
  /** When the message was ingested: inbox_message's partition key, so the META write reads one month's partition. */
  readonly ingestedAt: Date;
  /** The index, among the staged decisions, of this message's own decision (its decided_position). */
  readonly decision: number;
}

/** An append with outcomes ready to send: its positions and parameters. */
export interface StagedAppend {
  /** The positions the decisions take, in order. */
  readonly positions: readonly string[];
  readonly values: readonly unknown[];
  /** An outcome binds an identity (a unique violation is then a conflict, not an error). */
  readonly binds: boolean;
  /** The decisions as appended, and their recorded_at (appendedEvents.ts). */
  readonly rows: readonly AppendedRow[];
  readonly recordedAt: Date;
}

export type AppendResult = { readonly ok: true } | { readonly ok: false; readonly conflict: string };

/**
 * Stage `decisions` after `basis` with `outcomes` (pure). `writeBack` false (shadow mode): terminal
 * decisions register no CMINMSGS write-back.
 */
export function stageAppendWithOutcomes(
  basis: string,
  decisions: readonly NewDecision[],
  outcomes: readonly MessageOutcome[],
  now: Date,
  writeBack = true,
): StagedAppend {
  const append = appendValues(basis, decisions, now);
  const values = [
    ...append.values.map(asParameter),
    ...advanceValues(outcomes, append.positions, now, writeBack),
    ...metaValues(outcomes),
    basis,
    outcomes.length,
    ...metaMonths(outcomes),
  ];
  return { positions: append.positions, values, binds: outcomes.some((o) => o.identity !== null), rows: append.rows, recordedAt: now };
}

/**
 * Send a staged append as one autocommit statement. The fence is proven (`confirm`, `assertHeld`)
 * before it is sent; a writer_fence row at another epoch is a FencedError (nothing written).
 * Another position of the log, a message in another state, or an identity bound meanwhile: a
 * conflict (nothing written). Other database errors are thrown.
 */
export async function appendWithOutcomes(pool: pg.Pool, staged: StagedAppend, fence?: WriterFence): Promise<AppendResult> {
  await fence?.confirm?.();
  fence?.assertHeld();
  const epoch = fence?.epoch() ?? null;
  let row: GroupRow;
  try {
    // Named: PostgreSQL parses and plans it once per connection, not once per group.
    const values = [...staged.values, epoch];
    row = (await pool.query<GroupRow>({ name: 'msgx_append_with_outcomes', text: APPEND_WITH_OUTCOMES, values })).rows[0]!;
  } catch (err) {
    if (staged.binds && sqlState(err) === SqlState.uniqueViolation) return { ok: false, conflict: 'an identity was bound meanwhile' };
    if (sqlState(err) === SqlState.divisionByZero) return { ok: false, conflict: 'a head changed state meanwhile' };
    throw err;
  }
  if (fence && epoch !== null) assertFenceEpoch(fence, epoch, row.epoch);
  return resultOf(row, staged);
}

interface GroupRow {
  readonly epoch: string | null;
  readonly last_position: string | null;
}

function resultOf(row: GroupRow, staged: StagedAppend): AppendResult {
  const basis = staged.values[BASIS] as string;
  if (row.last_position !== basis) return { ok: false, conflict: `log moved to ${row.last_position} (decided at ${basis})` };
  return { ok: true };
}

/** The 0-based index of $35 (the basis) among the parameters; $36 the number of messages, $37–$38 the META months, $39 the epoch. */
const BASIS = 34;

// The order of the locks is the order of a transaction that takes them one by one: writer_fence
// FOR SHARE (a successor's epoch bump waits for this commit), then pipeline_lock FOR UPDATE (only
// when the fence holds: a one-time filter). `go` holds when the log is at $35; every write waits
// for it. The messages' rows are not locked beforehand: their UPDATE is the compare-and-set (state
// and attempts as decided; a row changed meanwhile is re-checked by PostgreSQL and left alone), and
// ALL_ADVANCED turns a short count into an error that undoes the whole statement — one pass over
// proc_state instead of a locking read before the update.
const LOCKS = `fence AS (SELECT epoch::text AS epoch FROM writer_fence WHERE id = 1 AND $39::text IS NOT NULL FOR SHARE),
    locked AS (
      SELECT last_position FROM pipeline_lock
       WHERE id = 1 AND ($39::text IS NULL OR $39::text = (SELECT epoch FROM fence))
         FOR UPDATE),
    go AS (SELECT 1 FROM locked WHERE last_position = $35::bigint)`;

const IF_GO = 'EXISTS (SELECT 1 FROM go)' as const;

// The messages' proc_state advance (compare-and-set on state + attempts), after the append's
// parameters: $11 now, $12 the backfill_state of terminal decisions, $13–$25 the columns of u.
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
      WHERE p.msg_id = u.msg_id AND p.state = u.expected_state AND p.attempts = u.expected_attempts AND ${IF_GO}`;

// The META columns of the messages that have them: $26–$34 (empty arrays: none has), in the
// months $37 ≤ ingested_at < $38 (metaMonths). inbox_message is partitioned by month (twelve
// ahead, docs/operations.md "Archive a month"): without the range every group probed every
// partition — and, where a new month's partition had no statistics yet, read it whole.
const RECORD_META = `UPDATE inbox_message m SET sndr = u.sndr, seqn = u.seqn, dttm = u.dttm, type = u.type, styp = u.styp,
            rcvr = u.rcvr, mgid = u.mgid, rmid = u.rmid
       FROM unnest($26::bigint[], $27::text[], $28::text[], $29::text[], $30::text[], $31::text[], $32::text[], $33::text[], $34::text[])
         AS u(msg_id, sndr, seqn, dttm, type, styp, rcvr, mgid, rmid)
      WHERE m.msg_id = u.msg_id AND m.ingested_at >= $37::timestamptz AND m.ingested_at < $38::timestamptz
        AND m.sndr IS NULL AND ${IF_GO}`;

/**
 * 1, or — when the group goes ahead and fewer than $36 messages were advanced (one changed state
 * after it was decided) — a division by zero: the error undoes the statement, decisions and all,
 * and appendWithOutcomes reports the conflict. Built from parameters, so it is evaluated per
 * execution, never folded into an error when the statement is planned.
 */
const ALL_ADVANCED = `1 / (CASE WHEN ${IF_GO} THEN ((SELECT count(*)::int FROM advanced) = $36::int)::int ELSE 1 END)`;

/** The whole group: locks and checks, append, advance proc_state, record META, NOTIFY — and what it found. */
const APPEND_WITH_OUTCOMES = `WITH ${LOCKS},
    ${appendCtes(IF_GO)},
    advanced AS (${ADVANCE_PROC_STATES} RETURNING 1),
    meta AS (${RECORD_META})
  SELECT (SELECT epoch FROM fence) AS epoch, (SELECT last_position::text FROM locked) AS last_position,
         ${ALL_ADVANCED} AS all_advanced,
         CASE WHEN ${IF_GO} THEN ${APPEND_NOTIFY} END AS notified`;

/** The parameters $11–$25 of ADVANCE_PROC_STATES: one pass over the outcomes, the arrays as literals. */
function advanceValues(outcomes: readonly MessageOutcome[], positions: readonly string[], now: Date, writeBack: boolean): unknown[] {
  const cols = Array.from({ length: 13 }, () => new ArrayLiteral());
  const [msgIds, states, errorClasses, causeClasses, lastErrors, nextAttempts, failures, terminals, decided, identities, statuses, expectedStates, expectedAttempts] = cols as [
    ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral, ArrayLiteral,
  ];
  for (const o of outcomes) {
    const u = o.update;
    msgIds.add(o.msgId);
    states.add(u.state);
    errorClasses.add(u.errorClass);
    causeClasses.add(u.causeClass);
    lastErrors.add(u.lastError);
    nextAttempts.add(u.nextAttemptAt);
    failures.add(u.failure);
    terminals.add(u.terminal);
    decided.add(positions[o.decision]!);
    identities.add(o.identity);
    statuses.add(u.backfillStatus);
    expectedStates.add(o.expectedState);
    expectedAttempts.add(o.expectedAttempts);
  }
  return [now, writeBack ? 'PENDING' : null, ...cols.map((c) => c.text())];
}

/** The parameters $26–$34 of RECORD_META (empty arrays: no message has META), as literals. */
function metaValues(outcomes: readonly MessageOutcome[]): unknown[] {
  const cols = Array.from({ length: 9 }, () => new ArrayLiteral());
  for (const o of outcomes) {
    const m = o.meta;
    if (m === null) continue;
    cols[0]!.add(o.msgId);
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

/**
 * $37–$38: from the first day (UTC) of the month of the earliest ingestedAt among the messages with
 * META to the first day of the month after the latest — whole months, so a row's own timestamp
 * (microseconds in PostgreSQL, milliseconds here) is always inside. Null, null: none has META.
 */
function metaMonths(outcomes: readonly MessageOutcome[]): [Date | null, Date | null] {
  let first: Date | null = null;
  let last: Date | null = null;
  for (const o of outcomes) {
    if (o.meta === null) continue;
    if (first === null || o.ingestedAt < first) first = o.ingestedAt;
    if (last === null || o.ingestedAt > last) last = o.ingestedAt;
  }
  if (first === null || last === null) return [null, null];
  return [monthStart(monthOf(first)), monthStart(nextMonth(monthOf(last)))];
}
