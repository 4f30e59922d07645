import type { Queryable } from '../../platform/db.ts';

/**
 * A row claimed by an older epoch is taken over only once its claim is this old: a writer that
 * lost its lock stops sending within its lease (writerLock.ts LEASE_MS), so after this its send
 * has either happened or been abandoned.
 */
export const CLAIM_GRACE_MS = 10_000;

export type ClaimResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'fenced' | 'claimed-by-other' };

/**
 * Claim outbox rows for a send under `epoch` (fenced deliveries, docs/security.md): all rows get
 * claim_epoch = epoch, or none does. Refused when writer_fence has moved past `epoch` (a successor
 * took the lock: this process must not send), or when a row is claimed by another epoch less than
 * `graceMs` ago.
 */
export async function claimRows(
  db: Queryable,
  eventIds: readonly string[],
  epoch: string,
  graceMs: number = CLAIM_GRACE_MS,
): Promise<ClaimResult> {
  if (eventIds.length === 0) return { ok: true };
  const { rows } = await db.query<{ fence: string; claimed: number }>(
    `WITH fence AS (SELECT epoch FROM writer_fence WHERE id = 1),
          claimed AS (
            UPDATE msg_event m SET claim_epoch = $2::bigint, claimed_at = clock_timestamp()
             WHERE m.event_id = ANY($1::bigint[]) AND m.state = 'PENDING'
               AND (SELECT epoch FROM fence) = $2::bigint
               AND (m.claim_epoch IS NULL OR m.claim_epoch = $2::bigint
                    OR m.claimed_at < clock_timestamp() - make_interval(secs => $3::double precision / 1000))
            RETURNING 1)
     SELECT (SELECT epoch FROM fence)::text AS fence, (SELECT count(*) FROM claimed)::int AS claimed`,
    [eventIds, epoch, graceMs],
  );
  const r = rows[0]!;
  if (r.fence !== epoch) return { ok: false, reason: 'fenced' };
  // all or nothing: a partial claim would send a batch some of whose rows another epoch holds
  if (r.claimed < eventIds.length) return { ok: false, reason: 'claimed-by-other' };
  return { ok: true };
}
