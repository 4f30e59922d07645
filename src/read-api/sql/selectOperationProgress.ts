import type { Queryable } from '../../platform/db.ts';

/** A running operation whose process has not written for this long is shown STALLED (its heartbeat is 5 s). */
export const STALLED_AFTER_SECONDS = 60;

export interface OperationProgressRecord {
  readonly id: string;
  readonly kind: string;
  readonly detail: string | null;
  readonly startedBy: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: Date;
  readonly updatedAt: Date;
  readonly finishedAt: Date | null;
  /** RUNNING | DONE | FAILED | CANCELLED | REFUSED | STALLED. */
  readonly state: string;
  readonly phase: string | null;
  readonly done: number;
  readonly total: number | null;
  readonly message: string | null;
  /** Seconds since the process last wrote (database time). */
  readonly silentSeconds: number;
}

/**
 * Operations (migration 130) running now, or that ended within `withinHours`, newest first. A
 * running row not updated for STALLED_AFTER_SECONDS of the database's own clock is STALLED: its
 * process was killed or hangs.
 */
export async function selectOperationProgress(q: Queryable, withinHours: number, limit: number): Promise<OperationProgressRecord[]> {
  const { rows } = await q.query<Omit<OperationProgressRecord, 'done' | 'total' | 'silentSeconds'> & { done: string; total: string | null; silentSeconds: number }>(
    `SELECT id::text AS id, kind, detail, started_by AS "startedBy", host, pid,
            started_at AS "startedAt", updated_at AS "updatedAt", finished_at AS "finishedAt",
            upper(CASE WHEN state = 'running' AND updated_at < now() - make_interval(secs => $3) THEN 'stalled' ELSE state END) AS state,
            phase, done::text AS done, total::text AS total, message,
            extract(epoch FROM now() - updated_at)::float8 AS "silentSeconds"
       FROM operation_progress
      WHERE state = 'running' OR finished_at >= now() - make_interval(hours => $1)
      ORDER BY started_at DESC, id DESC
      LIMIT $2`,
    [withinHours, limit, STALLED_AFTER_SECONDS],
  );
  return rows.map((r) => ({ ...r, done: Number(r.done), total: r.total === null ? null : Number(r.total), silentSeconds: Math.max(0, r.silentSeconds) }));
}
