import type { Queryable } from '../../platform/db.ts';
import type { FailureOutcome } from './failureOutcome.ts';

/**
 * Delivered rows: SENT with their delivery_ref. Only rows still PENDING change. One statement per
 * send; the refs travel as one JSON array (sqlBatch.ts), or as one value when the send gave every
 * row the same ref (a schd batch is one record).
 */
export async function markSent(
  db: Queryable,
  sent: readonly { readonly eventId: string; readonly ref: unknown }[],
  at: Date,
): Promise<void> {
  if (sent.length === 0) return;
  const ids = sent.map((s) => s.eventId);
  const first = sent[0]!.ref;
  if (sent.every((s) => s.ref === first)) {
    await db.query(
      `UPDATE msg_event SET state = 'SENT', sent_at = $3, delivery_ref = $2::jsonb, next_attempt_at = NULL
        WHERE event_id = ANY($1::bigint[]) AND state = 'PENDING'`,
      [ids, JSON.stringify(first ?? null), at],
    );
    return;
  }
  await db.query(
    `UPDATE msg_event m SET state = 'SENT', sent_at = $3, delivery_ref = u.ref, next_attempt_at = NULL
       FROM ROWS FROM (unnest($1::bigint[]), jsonb_array_elements($2::jsonb)) AS u(event_id, ref)
      WHERE m.event_id = u.event_id AND m.state = 'PENDING'`,
    [ids, JSON.stringify(sent.map((s) => s.ref ?? null)), at],
  );
}

/** A failed send: the tried rows get the outcome (attempts, PENDING+backoff or DEAD) and the error. */
export async function markFailed(
  db: Queryable,
  eventIds: readonly string[],
  outcome: FailureOutcome,
  error: string,
): Promise<void> {
  if (eventIds.length === 0) return;
  await db.query(
    `UPDATE msg_event SET state = $2, attempts = $3, next_attempt_at = $4, last_error = $5
      WHERE event_id = ANY($1::bigint[]) AND state = 'PENDING'`,
    [eventIds, outcome.state, outcome.attempts, outcome.nextAttemptAt, error],
  );
}
