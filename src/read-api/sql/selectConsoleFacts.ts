import type { Queryable } from '../../platform/db.ts';
import { WRITER_LOCK_KEY } from '../../write/writerLock.ts';

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
  const { rows } = await q.query<{ day: string }>(
    `SELECT to_char(f.operation_day, 'YYYY-MM-DD') AS day
       FROM (SELECT flids FROM decision_event
              WHERE position > (SELECT last_position FROM pipeline_lock WHERE id = 1) - $1 AND cardinality(flids) > 0
              ORDER BY position DESC LIMIT 1) d
       JOIN flight_schd f ON f.flid = d.flids[1]::bigint`,
    [LATEST_DAY_WINDOW],
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
 * Per minute over the last `minutes` up to `now`: decisions recorded (from decision_event) and
 * the backlog at each minute's end (from proc_state: a message counts from its ingest until its
 * state last changed to a terminal one). Bounded: the newest HISTORY_DECISION_WINDOW decisions
 * and the newest HISTORY_MESSAGE_WINDOW messages plus every unfinished one.
 */
export async function selectPipelineHistory(q: Queryable, now: Date, minutes: number): Promise<PipelineMinute[]> {
  const { rows } = await q.query<{ at: Date; decisions: number; backlog: number }>(
    `WITH span AS (SELECT date_trunc('minute', $1::timestamptz) - make_interval(mins => $2 - 1) AS since, date_trunc('minute', $1::timestamptz) AS until),
     minute AS (SELECT generate_series(span.since, span.until, interval '1 minute') AS at FROM span),
     dec AS (SELECT date_trunc('minute', recorded_at) AS at, count(*)::int AS n FROM decision_event
              WHERE position > (SELECT last_position FROM pipeline_lock WHERE id = 1) - $3
                AND recorded_at >= (SELECT since FROM span) GROUP BY 1),
     ids AS ((SELECT msg_id FROM proc_state ORDER BY msg_id DESC LIMIT $4)
             UNION SELECT msg_id FROM proc_state WHERE state IN ('PENDING', 'FAILED')),
     msg AS (SELECT m.ingested_at, CASE WHEN p.state IN ('PENDING', 'FAILED') THEN NULL ELSE p.updated_at END AS done_at
               FROM ids JOIN proc_state p USING (msg_id) JOIN inbox_message m USING (msg_id)
              WHERE m.ingested_at < (SELECT until FROM span) + interval '1 minute')
     SELECT minute.at, coalesce(dec.n, 0) AS decisions,
            (SELECT count(*)::int FROM msg WHERE msg.ingested_at < minute.at + interval '1 minute'
                AND (msg.done_at IS NULL OR msg.done_at >= minute.at + interval '1 minute')) AS backlog
       FROM minute LEFT JOIN dec USING (at) ORDER BY minute.at`,
    [now, minutes, HISTORY_DECISION_WINDOW, HISTORY_MESSAGE_WINDOW],
  );
  return rows;
}

/** Messages that ended SKIPPED since the start of today in the airport's zone (by their last state change). */
export async function countSkippedToday(q: Queryable, now: Date, tz: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM proc_state
      WHERE state = 'SKIPPED' AND updated_at >= (date_trunc('day', $1::timestamptz AT TIME ZONE $2) AT TIME ZONE $2)`,
    [now, tz],
  );
  return rows[0]!.n;
}

export interface WriterRecord {
  /** Some session holds the writer's advisory lock on this database now (advisory locks are per database; pg_locks shows the cluster's) (false on a read replica, which has no locks of the primary). */
  readonly lockHeld: boolean;
  readonly holder: string | null;
  readonly since: Date | null;
  /** How many times the lock was taken (the fence, docs/recovery.md). */
  readonly epoch: string;
}

export async function selectWriter(q: Queryable): Promise<WriterRecord> {
  const { rows } = await q.query<WriterRecord>(
    `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $1 AND objsubid = 1
                      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS "lockHeld",
            f.holder, f.taken_at AS since, f.epoch::text AS epoch
       FROM writer_fence f WHERE f.id = 1`,
    [WRITER_LOCK_KEY],
  );
  return rows[0] ?? { lockHeld: false, holder: null, since: null, epoch: '0' };
}
