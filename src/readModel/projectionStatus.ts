/** Projector positions and lag behind the log head (for `pipeline`, `msgx status` and metrics). */
import { logHead, recordedAtOf } from '../log/head.ts';
import type { Queryable } from '../platform/db.ts';

export interface ProjectionStatus {
  readonly name: string;
  /** Last applied position (decimal string). */
  readonly position: string;
  /** max(decision_event.position) − position, never negative (decimal string). */
  readonly lag: string;
  /**
   * Since when decisions have waited with the checkpoint where it is (the later of its last move
   * and the recording of the next decision); null when none waits. The metric
   * msgx_projection_stalled_seconds and the alert MsgxProjectorStalled (docs/operations.md "Stalled heads").
   */
  readonly waitingSince: Date | null;
}

/** `knownHead`: the log's head when the caller has read it already (pipeline_lock.last_position), else read here. */
export async function projectionStatus(q: Queryable, knownHead?: string): Promise<ProjectionStatus[]> {
  const head = knownHead ?? (await logHead(q));
  const { rows } = await q.query<Omit<ProjectionStatus, 'waitingSince'> & { movedAt: Date; next: string | null }>(
    `SELECT name, position::text AS position, GREATEST($1::bigint - position, 0)::text AS lag,
            updated_at AS "movedAt", CASE WHEN position < $1::bigint THEN (position + 1)::text END AS next
       FROM projection_checkpoint
      ORDER BY name`,
    [head],
  );
  const recorded = await recordedAtOf(q, rows.flatMap((r) => (r.next === null ? [] : [r.next])));
  return rows.map(({ movedAt, next, ...r }) => {
    const at = next === null ? undefined : recorded.get(next);
    return { ...r, waitingSince: next === null ? null : at === undefined || at < movedAt ? movedAt : at };
  });
}
