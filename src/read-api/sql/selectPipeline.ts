import type { Queryable } from '../../platform/db.ts';
import { projectionStatus, type ProjectionStatus } from '../../readModel/projectionStatus.ts';

export const OUTBOX_TARGETS = ['KAFKA_MSG', 'KAFKA_SCHD', 'COUTMSGS', 'AIDX'] as const;

export interface PipelineRecord {
  readonly watermark: string | null;
  readonly backlog: number;
  readonly failed: number;
  readonly dead: number;
  /** CODEC_ERROR / UNSUPPORTED messages parked (terminal for the FIFO, replayable). */
  readonly parked: number;
  readonly headId: string | null;
  readonly headIngestedAt: Date | null;
  readonly logPosition: string;
  readonly projections: readonly ProjectionStatus[];
  readonly outbox: readonly { target: string; pending: number; dead: number; oldestPendingAt: string | null }[];
}

/**
 * The pipeline status. The inbox numbers come from one statement; the projector positions are
 * read AFTER it, so a reader that sees backlog 0 and lag 0 knows the projections include every
 * decision of those messages (the log can only have grown between the two reads).
 */
export async function selectPipeline(q: Queryable): Promise<PipelineRecord> {
  const { rows } = await q.query<Omit<PipelineRecord, 'projections'>>(
    `WITH head AS (
       SELECT p.msg_id, m.ingested_at FROM proc_state p JOIN inbox_message m ON m.msg_id = p.msg_id
        WHERE p.state IN ('PENDING', 'FAILED') ORDER BY p.msg_id LIMIT 1),
     log AS (SELECT last_position FROM pipeline_lock WHERE id = 1)
     SELECT (SELECT watermark::text FROM inbox_cursor WHERE source = 'CMINMSGS') AS watermark,
            (SELECT count(*)::int FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS backlog,
            (SELECT count(*)::int FROM proc_state WHERE state = 'FAILED') AS failed,
            (SELECT count(*)::int FROM proc_state WHERE state = 'DEAD') AS dead,
            (SELECT count(*)::int FROM proc_state WHERE state = 'PARKED') AS parked,
            (SELECT msg_id::text FROM head) AS "headId",
            (SELECT ingested_at FROM head) AS "headIngestedAt",
            (SELECT last_position::text FROM log) AS "logPosition",
            (SELECT json_agg(json_build_object('target', t.target, 'pending', coalesce(o.pending, 0), 'dead', coalesce(o.dead, 0),
                      'oldestPendingAt', o.oldest) ORDER BY t.ord)
               FROM unnest($1::text[]) WITH ORDINALITY AS t(target, ord)
               LEFT JOIN (SELECT target,
                                 count(*) FILTER (WHERE state = 'PENDING')::int AS pending,
                                 count(*) FILTER (WHERE state = 'DEAD')::int AS dead,
                                 min(created_at) FILTER (WHERE state = 'PENDING') AS oldest
                            FROM msg_event WHERE state IN ('PENDING', 'DEAD') GROUP BY target) o ON o.target = t.target) AS outbox`,
    [OUTBOX_TARGETS],
  );
  return { ...rows[0]!, projections: await projectionStatus(q) };
}
