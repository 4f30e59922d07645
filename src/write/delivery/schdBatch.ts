import type { Queryable } from '../../platform/db.ts';
import { byEventId, CLAIM_FENCE, CLAIM_SET, CLAIMED, OUTBOX_COLUMNS, type OutboxRow } from './outboxRows.ts';

/** The oldest claimed KAFKA_SCHD batch still waiting to be delivered (at most two exist: schdWorker.ts claims the next while one is sent), in event_id order. */
export async function readOpenSchdBatch(db: Queryable): Promise<OutboxRow[]> {
  const { rows } = await db.query<OutboxRow>(
    `SELECT ${OUTBOX_COLUMNS} FROM msg_event
      WHERE target = 'KAFKA_SCHD' AND state = 'PENDING'
        AND batch_id = (SELECT min(batch_id) FROM msg_event
                         WHERE target = 'KAFKA_SCHD' AND state = 'PENDING' AND batch_id IS NOT NULL)
      ORDER BY event_id`,
  );
  return rows;
}

/** How many unclaimed KAFKA_SCHD rows are pending, counting no further than `cap`. */
export async function countUnclaimedSchd(db: Queryable, cap: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM msg_event
        WHERE target = 'KAFKA_SCHD' AND state = 'PENDING' AND batch_id IS NULL
        ORDER BY event_id LIMIT $1) s`,
    [cap],
  );
  return rows[0]?.n ?? 0;
}

/** A claimed batch; `fenced`: every row also carries the writer's epoch claim (claimRows.ts), so the send needs no claim of its own. */
export interface SchdBatch {
  readonly rows: OutboxRow[];
  readonly fenced: boolean;
}

/**
 * Claim the first `limit` unclaimed pending rows as one batch (batch_id = its first event_id).
 * With `fence` (docs/security.md "Fenced deliveries") the same statement also makes claimRows'
 * claim, under claimRows' conditions (the fence at `epoch`, no other epoch's claim younger than
 * the grace): one UPDATE of the rows instead of two. Where a condition fails the rows are only
 * batched, and the send claims them as before (and is refused as before).
 */
export async function claimSchdBatch(db: Queryable, limit: number, fence?: { readonly epoch: string; readonly graceMs: number }): Promise<SchdBatch> {
  const { rows } = await db.query<OutboxRow & { claimed: boolean }>(
    `WITH picked AS (
       SELECT event_id AS pid FROM msg_event
        WHERE target = 'KAFKA_SCHD' AND state = 'PENDING' AND batch_id IS NULL
        ORDER BY event_id LIMIT $3),
     ${CLAIM_FENCE}
     UPDATE msg_event m SET batch_id = (SELECT min(pid) FROM picked),
            ${CLAIM_SET}
       FROM picked WHERE m.event_id = picked.pid
     RETURNING ${OUTBOX_COLUMNS}, ${CLAIMED}`,
    [fence?.epoch ?? null, fence?.graceMs ?? 0, limit],
  );
  const fenced = fence !== undefined && rows.length > 0 && rows.every((r) => r.claimed);
  return { rows: byEventId(rows.map(({ claimed: _, ...r }) => r)), fenced };
}
