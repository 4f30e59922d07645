import type { Queryable } from '../../platform/db.ts';
import { decisionsPerMinute, newestDecidedFlid } from '../../log/recentDecisions.ts';

/**
 * The console's small reads beside `pipeline` (docs/operations.md, "Console"): each one bounded by
 * a fixed window of the log or of the newest messages, so a long history never makes them slower.
 */

/** The newest decisions looked at for the board's default day. */
export const LATEST_DAY_WINDOW = 1000;
/** The newest messages (by id) whose ingest and finish times draw the backlog chart. */
export const HISTORY_MESSAGE_WINDOW = 10_000;
/** The newest decisions counted into the decisions-per-minute chart. */
export const HISTORY_DECISION_WINDOW = 100_000;

/**
 * The operation day of the flight the newest flight decision touched (among the last
 * LATEST_DAY_WINDOW decisions): the day with the most recent traffic. null when there is none.
 */
export async function selectLatestOperationDay(q: Queryable): Promise<string | null> {
  const flid = await newestDecidedFlid(q, LATEST_DAY_WINDOW);
  if (flid === null) return null;
  const { rows } = await q.query<{ day: string }>(
    `SELECT to_char(operation_day, 'YYYY-MM-DD') AS day FROM flight_schd WHERE flid = $1::bigint`,
    [flid],
  );
  return rows[0]?.day ?? null;
}

export interface PipelineMinute {
  /** Start of the minute. */
  readonly at: Date;
  /** Decisions recorded in that minute. */
  readonly decisions: number;
  /** Messages copied and not yet terminal at the minute's end (PENDING or FAILED then). */
  readonly backlog: number;
}

/**
 * Per minute over the last `minutes` up to `now`: decisions recorded (src/log, the newest
 * HISTORY_DECISION_WINDOW) and the backlog at each minute's end (from proc_state: a message counts
 * from its ingest until its state last changed to a terminal one; the newest
 * HISTORY_MESSAGE_WINDOW messages plus every unfinished one).
 */
export async function selectPipelineHistory(q: Queryable, now: Date, minutes: number): Promise<PipelineMinute[]> {
  const { rows } = await q.query<{ at: Date; backlog: number }>(
    `WITH span AS (SELECT date_trunc('minute', $1::timestamptz) - make_interval(mins => $2 - 1) AS since, date_trunc('minute', $1::timestamptz) AS until),
     minute AS (SELECT generate_series(span.since, span.until, interval '1 minute') AS at FROM span),
     ids AS ((SELECT msg_id FROM proc_state ORDER BY msg_id DESC LIMIT $3)
             UNION SELECT msg_id FROM proc_state WHERE state IN ('PENDING', 'FAILED')),
     msg AS (SELECT m.ingested_at, CASE WHEN p.state IN ('PENDING', 'FAILED') THEN NULL ELSE p.updated_at END AS done_at
               FROM ids JOIN proc_state p USING (msg_id) JOIN inbox_message m USING (msg_id)
              WHERE m.ingested_at < (SELECT until FROM span) + interval '1 minute')
     SELECT minute.at,
            (SELECT count(*)::int FROM msg WHERE msg.ingested_at < minute.at + interval '1 minute'
                AND (msg.done_at IS NULL OR msg.done_at >= minute.at + interval '1 minute')) AS backlog
       FROM minute ORDER BY minute.at`,
    [now, minutes, HISTORY_MESSAGE_WINDOW],
  );
  const since = rows[0]?.at ?? now;
  const decided = new Map((await decisionsPerMinute(q, since, HISTORY_DECISION_WINDOW)).map((m) => [m.at.getTime(), m.n]));
  return rows.map((r) => ({ at: r.at, decisions: decided.get(r.at.getTime()) ?? 0, backlog: r.backlog }));
}
