/** Projector positions and lag behind the log head (for `pipeline`, `msgx status` and metrics). */
import type { Queryable } from '../platform/db.ts';

export interface ProjectionStatus {
  readonly name: string;
  /** Last applied position (decimal string). */
  readonly position: string;
  /** max(decision_event.position) − position, never negative (decimal string). */
  readonly lag: string;
}

export async function projectionStatus(q: Queryable): Promise<ProjectionStatus[]> {
  const { rows } = await q.query<ProjectionStatus>(
    `SELECT c.name, c.position::text AS position, GREATEST(h.head - c.position, 0)::text AS lag
       FROM projection_checkpoint c
      CROSS JOIN (SELECT COALESCE(max(position), 0) AS head FROM decision_event) h
      ORDER BY c.name`,
  );
  return rows;
}
