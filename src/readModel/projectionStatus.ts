/** Projector positions and lag behind the log head (for `pipeline`, `msgx status` and metrics). */
import { logHead } from '../log/head.ts';
import type { Queryable } from '../platform/db.ts';

export interface ProjectionStatus {
  readonly name: string;
  /** Last applied position (decimal string). */
  readonly position: string;
  /** max(decision_event.position) − position, never negative (decimal string). */
  readonly lag: string;
}

export async function projectionStatus(q: Queryable): Promise<ProjectionStatus[]> {
  const head = await logHead(q);
  const { rows } = await q.query<ProjectionStatus>(
    `SELECT name, position::text AS position, GREATEST($1::bigint - position, 0)::text AS lag
       FROM projection_checkpoint
      ORDER BY name`,
    [head],
  );
  return rows;
}
