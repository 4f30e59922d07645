import type { Queryable } from '../../platform/db.ts';
import type { Target } from './targets.ts';

/** A msg_event row as the dispatcher reads it. Ids and positions are int8 as decimal text. */
export interface OutboxRow {
  readonly eventId: string;
  readonly target: Target;
  readonly sourcePosition: string;
  readonly msgId: string | null;
  readonly flid: string | null;
  /**
   * The payload as stored (msg_event.payload is json, migration 340): the text the outbox feeder
   * wrote, sent as it is (a record's value) or parsed where a field of it is needed.
   */
  readonly payloadJson: string;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly batchId: string | null;
}

export const OUTBOX_COLUMNS = `event_id AS "eventId", target, source_position AS "sourcePosition", msg_id AS "msgId",
  flid, payload::text AS "payloadJson", headers, attempts, next_attempt_at AS "nextAttemptAt", batch_id AS "batchId"`;

/** The payload parsed, where a field of it is needed (the stored text is valid JSON: the column is json). */
export function payloadOf(row: Pick<OutboxRow, 'payloadJson'>): unknown {
  return JSON.parse(row.payloadJson);
}

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
