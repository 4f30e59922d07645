import type { Queryable } from '../../platform/db.ts';
import { byEventId, OUTBOX_COLUMNS, type OutboxRow } from './outboxRows.ts';

/** The claimed KAFKA_SCHD batch still waiting to be delivered (at most one exists), in event_id order. */
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

/** Claim the first `limit` unclaimed pending rows as one batch (batch_id = its first event_id). */
export async function claimSchdBatch(db: Queryable, limit: number): Promise<OutboxRow[]> {
  const { rows } = await db.query<OutboxRow>(
    `WITH picked AS (
       SELECT event_id AS pid FROM msg_event
        WHERE target = 'KAFKA_SCHD' AND state = 'PENDING' AND batch_id IS NULL
        ORDER BY event_id LIMIT $1)
     UPDATE msg_event m SET batch_id = (SELECT min(pid) FROM picked)
       FROM picked WHERE m.event_id = picked.pid
     RETURNING ${OUTBOX_COLUMNS}`,
    [limit],
  );
  return byEventId(rows);
}
