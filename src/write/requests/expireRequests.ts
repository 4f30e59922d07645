import type { Queryable } from '../../platform/db.ts';

/** Open requests (not yet answered) whose expires_at has passed → EXPIRED. Returns their mgids. */
export async function expireRequests(db: Queryable, now: Date): Promise<string[]> {
  const { rows } = await db.query<{ mgid: string }>(
    `UPDATE req_track SET state = 'EXPIRED', done_at = $1,
            last_error = COALESCE(last_error, 'no answer before expiry')
      WHERE state IN ('REGISTERED', 'SENT', 'WAITING') AND expires_at <= $1
      RETURNING mgid`,
    [now],
  );
  return rows.map((r) => r.mgid);
}

/** When the next open request expires or is due for another send attempt (null: none open). */
export async function nextRequestDue(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `SELECT least(
       (SELECT min(expires_at) FROM req_track WHERE state IN ('REGISTERED', 'SENT', 'WAITING')),
       (SELECT min(next_send_at) FROM req_track WHERE state = 'REGISTERED')) AS at`,
  );
  return rows[0]?.at ?? null;
}
