import type { Queryable } from '../../platform/db.ts';
import { INBOX_SOURCE } from './findHeads.ts';

export interface PipelineStatus {
  /** Unfinished messages (PENDING + FAILED). */
  readonly backlog: number;
  readonly head: {
    readonly msgId: string;
    readonly state: string;
    readonly attempts: number;
    readonly ingestedAt: Date;
    readonly nextAttemptAt: Date | null;
    readonly errorClass: string | null;
    readonly lastError: string | null;
    /** The head sits at or above the lowest open gap: it waits for the gap. */
    readonly blockedByGap: boolean;
  } | null;
  readonly counts: { readonly state: string; readonly errorClass: string | null; readonly n: number }[];
  readonly gaps: { readonly open: number; readonly lowest: string | null; readonly oldestOpenedAt: Date | null; readonly expired: number };
  readonly watermark: string;
  readonly lastPosition: string;
  readonly projections: { readonly name: string; readonly position: string }[];
  readonly backfillPending: number;
}

/** Everything `msgx status` prints, read in one snapshot. */
export async function pipelineStatus(q: Queryable): Promise<PipelineStatus> {
  const { rows } = await q.query<{ s: PipelineStatus & { head: (Omit<NonNullable<PipelineStatus['head']>, 'ingestedAt' | 'nextAttemptAt'> & { ingestedAt: string; nextAttemptAt: string | null }) | null; gaps: { open: number; lowest: string | null; oldestOpenedAt: string | null; expired: number } } }>(
    `SELECT json_build_object(
       'backlog', (SELECT count(*) FROM proc_state WHERE state IN ('PENDING', 'FAILED')),
       'head', (SELECT json_build_object('msgId', p.msg_id::text, 'state', p.state, 'attempts', p.attempts,
                        'ingestedAt', m.ingested_at, 'nextAttemptAt', p.next_attempt_at,
                        'errorClass', p.error_class, 'lastError', p.last_error,
                        'blockedByGap', EXISTS (SELECT 1 FROM inbox_gap g WHERE g.source = $1 AND g.closed_at IS NULL AND g.gap_id <= p.msg_id))
                  FROM proc_state p JOIN inbox_message m USING (msg_id)
                 WHERE p.state IN ('PENDING', 'FAILED') ORDER BY p.msg_id LIMIT 1),
       'counts', COALESCE((SELECT json_agg(json_build_object('state', state, 'errorClass', error_class, 'n', n) ORDER BY state, error_class)
                             FROM (SELECT state, error_class, count(*) AS n FROM proc_state GROUP BY 1, 2) c), '[]'),
       'gaps', (SELECT json_build_object(
                   'open', count(*) FILTER (WHERE closed_at IS NULL),
                   'lowest', (min(gap_id) FILTER (WHERE closed_at IS NULL))::text,
                   'oldestOpenedAt', min(opened_at) FILTER (WHERE closed_at IS NULL),
                   'expired', count(*) FILTER (WHERE closed_by = 'expired'))
                  FROM inbox_gap WHERE source = $1),
       'watermark', COALESCE((SELECT watermark::text FROM inbox_cursor WHERE source = $1), '0'),
       'lastPosition', (SELECT last_position::text FROM pipeline_lock WHERE id = 1),
       'projections', COALESCE((SELECT json_agg(json_build_object('name', name, 'position', position::text) ORDER BY name)
                                  FROM projection_checkpoint), '[]'),
       'backfillPending', (SELECT count(*) FROM proc_state WHERE backfill_state = 'PENDING')
     ) AS s`,
    [INBOX_SOURCE],
  );
  const s = rows[0]!.s;
  return {
    ...s,
    head: s.head ? { ...s.head, ingestedAt: new Date(s.head.ingestedAt), nextAttemptAt: s.head.nextAttemptAt ? new Date(s.head.nextAttemptAt) : null } : null,
    gaps: { ...s.gaps, oldestOpenedAt: s.gaps.oldestOpenedAt ? new Date(s.gaps.oldestOpenedAt) : null },
  };
}
