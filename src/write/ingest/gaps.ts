import type { PoolClient } from '../../platform/db.ts';

/**
 * Ingest gaps (invariant 2): ids skipped between visible CMINMSGS ids, i.e. auto-increment values
 * whose transaction had not committed (or rolled back) when a larger id was read.
 */

export interface OpenGap {
  readonly gapId: string;
  readonly openedAt: Date;
}

/** A run of more missing ids than MAX_GAP_RUN: recorded as one auditable range (inbox_id_range). */
export async function recordIdRange(c: PoolClient, source: string, after: string, next: string, now: Date): Promise<void> {
  await c.query(
    `INSERT INTO inbox_id_range (source, after_id, next_id, missing, recorded_at)
     VALUES ($1, $2::bigint, $3::bigint, $3::bigint - $2::bigint - 1, $4)
     ON CONFLICT (source, after_id) DO NOTHING`,
    [source, after, next, now],
  );
}

/** Record the ids in (`after`, `upTo`) that are not in `visible` as open gaps. Returns how many were new. */
export async function recordGaps(
  c: PoolClient,
  source: string,
  after: string,
  upTo: string,
  visible: readonly string[],
  now: Date,
): Promise<number> {
  const res = await c.query(
    `INSERT INTO inbox_gap (source, gap_id, opened_at)
     SELECT $1, g, $5 FROM generate_series($2::bigint + 1, $3::bigint - 1) AS g
      WHERE g <> ALL($4::bigint[])
     ON CONFLICT (source, gap_id) DO NOTHING`,
    [source, after, upTo, visible, now],
  );
  return res.rowCount ?? 0;
}

/** Mark gaps whose row was copied: open ones close as 'appeared'; expired ones note the late arrival. */
export async function markAppeared(c: PoolClient, source: string, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await c.query(
    `UPDATE inbox_gap
        SET appeared_at = $3,
            closed_by = COALESCE(closed_by, 'appeared'),
            closed_at = COALESCE(closed_at, $3)
      WHERE source = $1 AND gap_id = ANY($2::bigint[]) AND appeared_at IS NULL`,
    [source, ids, now],
  );
}

/** Expired gaps from the columns of an UPDATE … RETURNING (ids as text, opened_at times), in id order. */
export function expiredGaps(gapIds: readonly string[], openedAt: readonly Date[]): OpenGap[] {
  return gapIds
    .map((gapId, i) => ({ gapId, openedAt: openedAt[i]! }))
    .sort((a, b) => (BigInt(a.gapId) < BigInt(b.gapId) ? -1 : 1));
}
