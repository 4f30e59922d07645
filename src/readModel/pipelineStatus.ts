/**
 * The pipeline status — the one query behind `msgx status`, GraphQL `pipeline` and the metrics
 * (docs/operations.md "Status"). The inbox, gap, log and outbox figures come from one statement;
 * the projector positions are read AFTER it, so a reader that sees backlog 0 and lag 0 knows the
 * projections include every decision of those messages (the log can only have grown between the
 * two reads).
 *
 * Read from a PostgreSQL streaming replica (MSGX_READ_DATABASE_URL, docs/scaling.md "Read API
 * replicas"), it also reports the replica's lag: log positions the primary has recorded that the
 * replica does not show yet (the primary's head is read AFTER the replica's statement, so the lag is
 * never under-stated), and seconds since the newest commit it replayed while it is behind.
 */
import { STANDBY_LOCK_KEY, TARGETS, WRITER_LOCK_KEY } from '../domain/contract.ts';
import type { Queryable } from '../platform/db.ts';
import { projectionStatus, type ProjectionStatus } from './projectionStatus.ts';

export interface PipelineHead {
  readonly msgId: string;
  readonly state: string;
  readonly attempts: number;
  readonly ingestedAt: Date;
  readonly nextAttemptAt: Date | null;
  readonly errorClass: string | null;
  readonly lastError: string | null;
  /** The head sits at or above the lowest open gap: it waits for the gap. */
  readonly blockedByGap: boolean;
}

export interface PipelineStatus {
  /** Unfinished messages (PENDING + FAILED). */
  readonly backlog: number;
  readonly failed: number;
  readonly dead: number;
  /** CODEC_ERROR / UNSUPPORTED messages parked (terminal for the FIFO, replayable). */
  readonly parked: number;
  /** The lowest unfinished message; null when nothing is unfinished. */
  readonly head: PipelineHead | null;
  /** Messages per (state, error class), ordered by both. */
  readonly counts: readonly { readonly state: string; readonly errorClass: string | null; readonly n: number }[];
  readonly gaps: { readonly open: number; readonly lowest: string | null; readonly oldestOpenedAt: Date | null; readonly expired: number };
  /** The ingest watermark of CMINMSGS; null before the first copy. */
  readonly watermark: string | null;
  /** The log head (pipeline_lock.last_position). */
  readonly lastPosition: string;
  /** Terminal messages whose CMINMSGS write-back is still to do. */
  readonly backfillPending: number;
  /** Per outbox target, in the order of TARGETS. */
  readonly outbox: readonly { readonly target: string; readonly pending: number; readonly dead: number; readonly oldestPendingAt: Date | null }[];
  readonly projections: readonly ProjectionStatus[];
  /** Set when read from a hot standby; null on the primary. */
  readonly replica: ReplicaLag | null;
  /** Messages that ended SKIPPED (duplicates, unknown flights, stale…) since midnight in the airport's zone, by their last state change. */
  readonly skippedToday: number;
  readonly writer: WriterRecord;
}

export interface ReplicaLag {
  /** Decision-log positions recorded on the primary that the replica does not show yet; null when the primary was not reachable. */
  readonly positions: number | null;
  /** 0 when it shows the primary's log head, else seconds since the newest commit it replayed; null when the primary was not reachable. */
  readonly seconds: number | null;
  /** pg_last_wal_replay_lsn() of the replica. */
  readonly replayedLsn: string | null;
  /** pg_wal_replay_pause() is in effect. */
  readonly replayPaused: boolean;
}

/** The single writer (docs/operations.md "Single writer and standby"). */
export interface WriterRecord {
  /** Some session holds the writer lock on this database now (pg_locks lists every database's advisory locks; false on a read replica). */
  readonly lockHeld: boolean;
  readonly holder: string | null;
  readonly since: Date | null;
  /** How many times the lock was taken (the fence, docs/recovery.md). */
  readonly epoch: string;
  /** Standby processes waiting for the lock now (each holds STANDBY_LOCK_KEY while it waits). */
  readonly standbys: number;
}

/** Where "today" is: the instant now and the airport's time zone (skippedToday counts from its midnight). */
export interface StatusDay {
  readonly now: Date;
  readonly tz: string;
}

type Row = Omit<PipelineStatus, 'head' | 'gaps' | 'outbox' | 'projections' | 'writer' | 'replica'> & {
  writer: Omit<WriterRecord, 'since'> & { since: string | null };
  replica: { replayedLsn: string | null; replayPaused: boolean; replayedAt: string | null; now: string } | null;
  head: (Omit<PipelineHead, 'ingestedAt' | 'nextAttemptAt'> & { ingestedAt: string; nextAttemptAt: string | null }) | null;
  gaps: Omit<PipelineStatus['gaps'], 'oldestOpenedAt'> & { oldestOpenedAt: string | null };
  outbox: { target: string; pending: number; dead: number; oldestPendingAt: string | null }[];
};

const SOURCE = 'CMINMSGS';

/** `primary`: the writer's database, for the lag of a replica `q` (the read API passes it when it reads from a replica). */
export async function pipelineStatus(q: Queryable, day: StatusDay, opts: { primary?: Queryable } = {}): Promise<PipelineStatus> {
  const { rows } = await q.query<{ s: Row }>(
    `SELECT json_build_object(
       'backlog', (SELECT count(*) FROM proc_state WHERE state IN ('PENDING', 'FAILED')),
       'failed', (SELECT count(*) FROM proc_state WHERE state = 'FAILED'),
       'dead', (SELECT count(*) FROM proc_state WHERE state = 'DEAD'),
       'parked', (SELECT count(*) FROM proc_state WHERE state = 'PARKED'),
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
       'watermark', (SELECT watermark::text FROM inbox_cursor WHERE source = $1),
       'lastPosition', (SELECT last_position::text FROM pipeline_lock WHERE id = 1),
       'backfillPending', (SELECT count(*) FROM proc_state WHERE backfill_state = 'PENDING'),
       'outbox', (SELECT json_agg(json_build_object('target', t.target, 'pending', coalesce(o.pending, 0), 'dead', coalesce(o.dead, 0),
                           'oldestPendingAt', o.oldest) ORDER BY t.ord)
                    FROM unnest($2::text[]) WITH ORDINALITY AS t(target, ord)
                    LEFT JOIN (SELECT target,
                                      count(*) FILTER (WHERE state = 'PENDING') AS pending,
                                      count(*) FILTER (WHERE state = 'DEAD') AS dead,
                                      min(created_at) FILTER (WHERE state = 'PENDING') AS oldest
                                 FROM msg_event WHERE state IN ('PENDING', 'DEAD') GROUP BY target) o ON o.target = t.target),
       'skippedToday', (SELECT count(*) FROM proc_state
                         WHERE state = 'SKIPPED' AND updated_at >= (date_trunc('day', $3::timestamptz AT TIME ZONE $4) AT TIME ZONE $4)),
       'writer', json_build_object(
         'lockHeld', EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $5 AND objsubid = 1
                               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())),
         'standbys', (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $6 AND objsubid = 1
                        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())),
         'holder', (SELECT holder FROM writer_fence WHERE id = 1),
         'since', (SELECT taken_at FROM writer_fence WHERE id = 1),
         'epoch', coalesce((SELECT epoch::text FROM writer_fence WHERE id = 1), '0')),
       'replica', CASE WHEN pg_is_in_recovery() THEN json_build_object(
                    'replayedLsn', pg_last_wal_replay_lsn()::text, 'replayPaused', pg_is_wal_replay_paused(),
                    'replayedAt', pg_last_xact_replay_timestamp(), 'now', clock_timestamp()) END
     ) AS s`,
    [SOURCE, TARGETS, day.now, day.tz, WRITER_LOCK_KEY, STANDBY_LOCK_KEY],
  );
  const s = rows[0]!.s;
  const at = (t: string | null): Date | null => (t === null ? null : new Date(t));
  const projections = await projectionStatus(q, s.lastPosition);
  return {
    ...s,
    replica: s.replica ? await replicaLag(s.replica, s.lastPosition, opts.primary) : null,
    head: s.head ? { ...s.head, ingestedAt: new Date(s.head.ingestedAt), nextAttemptAt: at(s.head.nextAttemptAt) } : null,
    gaps: { ...s.gaps, oldestOpenedAt: at(s.gaps.oldestOpenedAt) },
    outbox: s.outbox.map((o) => ({ ...o, oldestPendingAt: at(o.oldestPendingAt) })),
    writer: { ...s.writer, since: at(s.writer.since) },
    projections,
  };
}

async function replicaLag(r: NonNullable<Row['replica']>, replicaHead: string, primary: Queryable | undefined): Promise<ReplicaLag> {
  const base = { replayedLsn: r.replayedLsn, replayPaused: r.replayPaused };
  if (!primary) return { ...base, positions: null, seconds: null };
  let primaryHead: string;
  try {
    const { rows } = await primary.query<{ p: string }>('SELECT last_position::text AS p FROM pipeline_lock WHERE id = 1');
    primaryHead = rows[0]!.p;
  } catch {
    return { ...base, positions: null, seconds: null };
  }
  const positions = Math.max(0, Number(BigInt(primaryHead) - BigInt(replicaHead)));
  const seconds = positions === 0 ? 0 : r.replayedAt === null ? null : Math.max(0, (Date.parse(r.now) - Date.parse(r.replayedAt)) / 1000);
  return { ...base, positions, seconds };
}
