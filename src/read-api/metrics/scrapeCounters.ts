import type { Queryable } from '../../platform/db.ts';

/**
 * Incremental scans behind the counters and the latency histogram: each scrape reads only the log
 * rows and sent deliveries it has not seen yet (bounded per scrape), so /metrics stays cheap on a
 * long log.
 */

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

export interface SentDelivery {
  readonly target: string;
  readonly eventId: string;
  /** From the decision's recording to the delivery's confirmation. */
  readonly seconds: number;
}

/** Deliveries SENT since the per-target event id marks, oldest first, at most `limit` per target. */
export async function selectSentAfter(
  q: Queryable,
  marks: ReadonlyMap<string, string>,
  limit: number,
): Promise<SentDelivery[]> {
  const { rows } = await q.query<SentDelivery>(
    `SELECT t.target, x.event_id::text AS "eventId", x.seconds
       FROM unnest($1::text[], $2::bigint[]) AS t(target, after)
       CROSS JOIN LATERAL (
         SELECT m.event_id, greatest(extract(epoch FROM m.sent_at - d.recorded_at), 0)::float8 AS seconds
           FROM msg_event m JOIN decision_event d ON d.position = m.source_position
          WHERE m.target = t.target AND m.state = 'SENT' AND m.sent_at IS NOT NULL AND m.event_id > t.after
          ORDER BY m.event_id LIMIT $3) x`,
    [[...marks.keys()], [...marks.values()], limit],
  );
  return rows;
}
