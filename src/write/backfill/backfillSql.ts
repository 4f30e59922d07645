import type { Queryable } from '../../platform/db.ts';
import { recordedAtOf } from '../../log/head.ts';
import type { BackfillStatus } from '../../platform/mailbox/port.ts';

export interface DueBackfill {
  readonly msgId: string;
  readonly status: BackfillStatus;
  readonly decidedPosition: string;
  /** When the terminal decision was recorded: CMINMSGS_DATE_PROCESSED. */
  readonly processedAt: Date;
  readonly attempts: number;
}

/** Terminal messages whose CMINMSGS backfill is pending and due, oldest first. */
export async function dueBackfills(q: Queryable, now: Date, limit: number): Promise<DueBackfill[]> {
  const { rows } = await q.query<{ msg_id: string; status: BackfillStatus; pos: string; attempts: number }>(
    `SELECT p.msg_id, p.backfill_status AS status, p.decided_position::text AS pos, p.backfill_attempts AS attempts
       FROM proc_state p
      WHERE p.backfill_state = 'PENDING' AND (p.backfill_next_at IS NULL OR p.backfill_next_at <= $1)
      ORDER BY p.msg_id
      LIMIT $2`,
    [now, limit],
  );
  const recorded = await recordedAtOf(q, rows.map((r) => r.pos));
  return rows.flatMap((r) => {
    const processedAt = recorded.get(r.pos);
    return processedAt ? [{ msgId: r.msg_id, status: r.status, decidedPosition: r.pos, processedAt, attempts: r.attempts }] : [];
  });
}

/** Mark done — only where the decision is still the one that was written back (a replay may have moved on). */
export async function markBackfilled(q: Queryable, items: readonly DueBackfill[]): Promise<void> {
  await q.query(
    `UPDATE proc_state p SET backfill_state = 'DONE', backfill_error = NULL, backfill_next_at = NULL
       FROM unnest($1::bigint[], $2::bigint[]) AS u(id, pos)
      WHERE p.msg_id = u.id AND p.decided_position = u.pos AND p.backfill_state = 'PENDING'`,
    [items.map((i) => i.msgId), items.map((i) => i.decidedPosition)],
  );
}

/** Record a failed write-back: attempts + 1, next try at the given times. */
export async function markBackfillFailed(
  q: Queryable,
  items: readonly DueBackfill[],
  nextAt: readonly Date[],
  error: string,
): Promise<void> {
  await q.query(
    `UPDATE proc_state p SET backfill_attempts = p.backfill_attempts + 1, backfill_next_at = u.next_at, backfill_error = $3
       FROM unnest($1::bigint[], $2::timestamptz[], $4::bigint[]) AS u(id, next_at, pos)
      WHERE p.msg_id = u.id AND p.decided_position = u.pos AND p.backfill_state = 'PENDING'`,
    [items.map((i) => i.msgId), nextAt, error, items.map((i) => i.decidedPosition)],
  );
}
