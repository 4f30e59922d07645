import type { Queryable } from '../../platform/db.ts';

export interface OpsGauges {
  readonly openGaps: number;
  readonly oldestOpenGapAt: string | null;
  readonly parked: number;
  readonly pendingWriteBacks: number;
}

/** The operator's gauges beside the pipeline status: open ingest gaps, PARKED messages, pending CMINMSGS write-backs. */
export async function selectOpsGauges(q: Queryable): Promise<OpsGauges> {
  const { rows } = await q.query<OpsGauges>(
    `SELECT (SELECT count(*)::int FROM inbox_gap WHERE source = 'CMINMSGS' AND closed_at IS NULL) AS "openGaps",
            (SELECT min(opened_at) FROM inbox_gap WHERE source = 'CMINMSGS' AND closed_at IS NULL)::text AS "oldestOpenGapAt",
            (SELECT count(*)::int FROM proc_state WHERE state = 'PARKED') AS parked,
            (SELECT count(*)::int FROM proc_state WHERE backfill_state = 'PENDING') AS "pendingWriteBacks"`,
  );
  return rows[0]!;
}
