import type { Queryable } from '../../platform/db.ts';
import type { Target } from './targets.ts';

/** A msg_event row as the dispatcher reads it. Ids and positions are int8 as decimal text. */
export interface OutboxRow {
  readonly eventId: string;
  readonly target: Target;
  readonly sourcePosition: string;
  readonly msgId: string | null;
  readonly flid: string | null;
  readonly payload: unknown;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly batchId: string | null;
}

export const OUTBOX_COLUMNS = `event_id AS "eventId", target, source_position AS "sourcePosition", msg_id AS "msgId",
  flid, payload, headers, attempts, next_attempt_at AS "nextAttemptAt", batch_id AS "batchId"`;

/** The first `limit` PENDING rows of a target in event_id order: the head and what follows it. */
export async function readHead(db: Queryable, target: Target, limit: number): Promise<OutboxRow[]> {
  const { rows } = await db.query<OutboxRow>(
    `SELECT ${OUTBOX_COLUMNS} FROM msg_event
      WHERE target = $1 AND state = 'PENDING'
      ORDER BY event_id LIMIT $2`,
    [target, limit],
  );
  return rows;
}

/** Rows in event_id order (RETURNING gives no order). */
export function byEventId(rows: readonly OutboxRow[]): OutboxRow[] {
  return [...rows].sort((a, b) => compareIds(a.eventId, b.eventId));
}

export function compareIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
