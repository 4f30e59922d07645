/**
 * The newest decisions, read within a fixed window below the log head (docs/operations.md
 * "Console"): what the console's board default day and its decisions-per-minute chart need, bounded
 * so that a long history never makes them slower.
 */
import type { Queryable } from '../platform/db.ts';

/** The first flight (flid) of the newest flight decision among the last `window` decisions; null when there is none. */
export async function newestDecidedFlid(q: Queryable, window: number): Promise<string | null> {
  const { rows } = await q.query<{ flid: string }>(
    `SELECT flids[1]::text AS flid FROM decision_event
      WHERE position > (SELECT last_position FROM pipeline_lock WHERE id = 1) - $1 AND cardinality(flids) > 0
      ORDER BY position DESC LIMIT 1`,
    [window],
  );
  return rows[0]?.flid ?? null;
}

export interface MinuteCount {
  /** Start of the minute. */
  readonly at: Date;
  readonly n: number;
}

/** Decisions recorded per minute since `since` (minutes without any are left out), among the last `window` decisions. */
export async function decisionsPerMinute(q: Queryable, since: Date, window: number): Promise<MinuteCount[]> {
  const { rows } = await q.query<MinuteCount>(
    `SELECT date_trunc('minute', recorded_at) AS at, count(*)::int AS n FROM decision_event
      WHERE position > (SELECT last_position FROM pipeline_lock WHERE id = 1) - $2 AND recorded_at >= $1
      GROUP BY 1 ORDER BY 1`,
    [since, window],
  );
  return rows;
}
