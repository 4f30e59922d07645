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

/**
 * A claim of picked outbox rows for the writer's epoch ($1) in the UPDATE that selects them, with
 * the fence's grace in ms ($2): the `fence` CTE, the SET of (claim_epoch, claimed_at) — taken when
 * the fence is ours and the row is unclaimed, ours, or its claim is older than the grace — and the
 * RETURNING column `claimed`. Shared by the msg/AIDX head claim and the schd batch claim.
 */
export const CLAIM_FENCE = 'fence AS (SELECT epoch = $1::bigint AS ours FROM writer_fence WHERE id = 1)';
export const CLAIM_SET = `(claim_epoch, claimed_at) = (SELECT CASE WHEN ok THEN $1::bigint ELSE m.claim_epoch END, CASE WHEN ok THEN clock_timestamp() ELSE m.claimed_at END
                                           FROM (SELECT coalesce((SELECT ours FROM fence), false)
                                                        AND (m.claim_epoch IS NULL OR m.claim_epoch = $1::bigint
                                                             OR m.claimed_at < clock_timestamp() - make_interval(secs => $2::double precision / 1000)) AS ok) c)`;
export const CLAIMED = 'coalesce((SELECT ours FROM fence), false) AND m.claim_epoch IS NOT DISTINCT FROM $1::bigint AS claimed';

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

/** A head claimed with its read (claimFreshHead); `fenced`: every row also carries the writer's epoch claim (claimRows.ts). */
export interface ClaimedHead {
  readonly rows: OutboxRow[];
  readonly fenced: boolean;
}

/**
 * The head of a target and the fresh rows right behind it (never tried, no backoff), read and
 * claimed for `epoch` in one statement — the KAFKA_MSG and AIDX loops' usual step (msgWorker.ts):
 * one UPDATE … RETURNING instead of a SELECT of the head and an UPDATE of the claim. The claim is
 * claimRows' under its conditions (the fence at `epoch`, no row claimed by another epoch younger than
 * the grace); where one fails the rows are returned unclaimed and the send claims them as before (and
 * is refused as before). No rows: the target is empty, or its head was tried before (its backoff and
 * repeat rules need the plain read, readHead).
 */
export async function claimFreshHead(
  db: Queryable,
  target: Target,
  limit: number,
  fence: { readonly epoch: string; readonly graceMs: number },
): Promise<ClaimedHead> {
  const { rows } = await db.query<OutboxRow & { claimed: boolean }>(
    `WITH head AS (
       SELECT event_id, attempts, next_attempt_at FROM msg_event
        WHERE target = $3 AND state = 'PENDING'
        ORDER BY event_id LIMIT $4),
     tried AS (SELECT min(event_id) AS first FROM head WHERE attempts > 0 OR next_attempt_at IS NOT NULL),
     picked AS (SELECT event_id AS pid FROM head WHERE event_id < coalesce((SELECT first FROM tried), 9223372036854775807)),
     ${CLAIM_FENCE}
     UPDATE msg_event m SET
            ${CLAIM_SET}
       FROM picked WHERE m.event_id = picked.pid
     RETURNING ${OUTBOX_COLUMNS}, ${CLAIMED}`,
    [fence.epoch, fence.graceMs, target, limit],
  );
  const fenced = rows.length > 0 && rows.every((r) => r.claimed);
  return { rows: byEventId(rows.map(({ claimed: _, ...r }) => r)), fenced };
}
