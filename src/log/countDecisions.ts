/** Decisions counted by kind (and a Skipped's reason) after a position: the metrics' incremental scan. */
import type { Queryable } from '../platform/db.ts';

export interface DecisionCount {
  readonly kind: string;
  /** For Skipped: the reason without its argument (duplicate-of, unknown-flight, …). */
  readonly reason: string | null;
  readonly n: number;
}

export async function countDecisionsAfter(
  q: Queryable,
  after: string,
  limit: number,
): Promise<{ counts: DecisionCount[]; upTo: string }> {
  const { rows } = await q.query<{ kind: string; reason: string | null; n: number; up_to: string }>(
    `WITH batch AS (
       SELECT position, kind, payload FROM decision_event WHERE position > $1::bigint ORDER BY position LIMIT $2)
     SELECT kind, CASE WHEN kind = 'Skipped' THEN split_part(payload->>'reason', ':', 1) END AS reason,
            count(*)::int AS n, max(max(position)) OVER ()::text AS up_to
       FROM batch GROUP BY 1, 2`,
    [after, limit],
  );
  return { counts: rows.map(({ kind, reason, n }) => ({ kind, reason, n })), upTo: rows[0]?.up_to ?? after };
}
