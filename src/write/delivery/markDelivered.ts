import type { Queryable } from '../../platform/db.ts';
import type { FailureOutcome } from './failureOutcome.ts';

/** Delivered rows: SENT with their delivery_ref. Only rows still PENDING change. */
export async function markSent(
  db: Queryable,
  sent: readonly { readonly eventId: string; readonly ref: unknown }[],
  at: Date,
): Promise<void> {
  if (sent.length === 0) return;
  await db.query(
    `UPDATE msg_event m SET state = 'SENT', sent_at = $3, delivery_ref = u.ref, next_attempt_at = NULL
       FROM unnest($1::bigint[], $2::jsonb[]) AS u(event_id, ref)
      WHERE m.event_id = u.event_id AND m.state = 'PENDING'`,
    [sent.map((s) => s.eventId), sent.map((s) => JSON.stringify(s.ref)), at],
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
