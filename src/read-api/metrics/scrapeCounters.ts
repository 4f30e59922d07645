import type { Queryable } from '../../platform/db.ts';
import { recordedAtOf } from '../../log/head.ts';

/**
 * Incremental scans behind the counters and the latency histogram: each scrape reads only the log
 * rows and sent deliveries it has not seen yet (bounded per scrape), so /metrics stays cheap on a
 * long log.
 */

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
  const { rows } = await q.query<{ target: string; eventId: string; sentAt: Date; source: string }>(
    `SELECT t.target, x.event_id::text AS "eventId", x.sent_at AS "sentAt", x.source_position::text AS source
       FROM unnest($1::text[], $2::bigint[]) AS t(target, after)
       CROSS JOIN LATERAL (
         SELECT m.event_id, m.sent_at, m.source_position
           FROM msg_event m
          WHERE m.target = t.target AND m.state = 'SENT' AND m.sent_at IS NOT NULL AND m.event_id > t.after
          ORDER BY m.event_id LIMIT $3) x`,
    [[...marks.keys()], [...marks.values()], limit],
  );
  const recorded = await recordedAtOf(q, [...new Set(rows.map((r) => r.source))]);
  return rows.flatMap((r) => {
    const at = recorded.get(r.source);
    return at ? [{ target: r.target, eventId: r.eventId, seconds: Math.max((r.sentAt.getTime() - at.getTime()) / 1000, 0) }] : [];
  });
}
